"""Building the lemmatisers: `workbench privacy build-lemmatiser`, and on first use `lemmatiser(lang)`
(built where not built yet, then loaded).

The only place that trains them; loading (workbench.privacy.inference_attacks.lemmatiser) never builds.
Training is spaCy's own `spacy train` on a config written here: a blank tokenizer of the
language and a `trainable_lemmatizer` with its own HashEmbedCNN encoder, on the gold lemmas
of the UD treebanks (the recipe and its key: workbench.privacy.inference_attacks.lemmatiser.RECIPE). Builds run
under a file lock into a temporary folder that is renamed into place only when complete;
build.json records the steps, the seconds and the held-out lemma accuracy (PUD; EWT test).
"""

from __future__ import annotations

import contextlib
import json
import random
import shutil
import sys
import time
from functools import lru_cache
from pathlib import Path

from workbench.infra.build_once import built_once
from workbench.infra.errors import MissingExtra
from workbench.privacy.inference_attacks.lemmatiser import (
    BUILD_FILE,
    RECIPE,
    Lemmatiser,
    lemmatiser_dir,
    load_lemmatiser,
    pud_path,
    training_files,
)

_CONFIG = """
[paths]
train = null
dev = null

[system]
seed = {seed}
gpu_allocator = null

[nlp]
lang = "{lang}"
pipeline = ["lemmatizer"]
batch_size = 256

[components]

[components.lemmatizer]
factory = "trainable_lemmatizer"
backoff = "orth"
min_tree_freq = {min_tree_freq}
overwrite = true
top_k = 1

[components.lemmatizer.model]
@architectures = "spacy.Tagger.v2"
nO = null
normalize = false

[components.lemmatizer.model.tok2vec]
@architectures = "spacy.HashEmbedCNN.v2"
width = {width}
depth = {depth}
embed_size = {embed_size}
window_size = 1
maxout_pieces = 3
subword_features = true
pretrained_vectors = null

[corpora]

[corpora.train]
@readers = "spacy.Corpus.v1"
path = ${{paths.train}}

[corpora.dev]
@readers = "spacy.Corpus.v1"
path = ${{paths.dev}}

[training]
seed = {seed}
max_steps = {max_steps}
max_epochs = 0
eval_frequency = {eval_frequency}
patience = 0
dropout = 0.1

[training.score_weights]
lemma_acc = 1.0

[training.optimizer]
@optimizers = "Adam.v1"
learn_rate = {learn_rate}

[training.batcher]
@batchers = "spacy.batch_by_words.v1"
discard_oversize = false
tolerance = 0.2

[training.batcher.size]
@schedules = "compounding.v1"
start = 100
stop = 1000
compound = 1.001
"""


def build_lemmatiser(lang: str) -> Path:
    """The lemmatiser directory of `lang`, trained first (minutes) if it is not built yet."""
    return built_once(lemmatiser_dir(lang), BUILD_FILE, f"{lang}.lock", lambda path: _build(lang, path))


def _build(lang: str, path: Path) -> None:
    from spacy.cli.init_config import fill_config
    from spacy.cli.train import train

    tmp = path.with_name(path.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    started = time.time()
    steps = RECIPE["max_steps"][lang]
    print(f"building the {lang} lemmatiser ({steps} steps, about a minute on 2 idle cores, once) in {path} …",
          file=sys.stderr)
    work = tmp / "work"
    work.mkdir()
    train_docs, dev_docs = _training_docs(lang)
    _docbin(train_docs).to_disk(work / "train.spacy")
    _docbin(dev_docs).to_disk(work / "dev.spacy")
    base = work / "base.cfg"
    base.write_text(_CONFIG.format(lang=lang, max_steps=steps, **{k: v for k, v in RECIPE.items() if k != "max_steps"}))
    config = work / "config.cfg"
    fill_config(config, base, silent=True)
    with contextlib.redirect_stdout(sys.stderr):  # spaCy's training table: progress, not output
        train(config, work / "out", use_gpu=-1,
              overrides={"paths.train": str(work / "train.spacy"), "paths.dev": str(work / "dev.spacy")})
    model = tmp / "model"
    shutil.copytree(work / "out" / "model-best", model)
    trained_s = time.time() - started
    info = {"lang": lang, "recipe": RECIPE, "steps": steps, "key": path.name, "train_sentences": _count(train_docs),
            "seconds_train": round(trained_s, 1), "accuracy": evaluate(model, lang)}
    shutil.rmtree(work)
    # The pipeline itself sits at the top of the folder (spacy.load(path)), build.json beside it.
    for item in model.iterdir():
        item.rename(tmp / item.name)
    model.rmdir()
    info["seconds_total"] = round(time.time() - started, 1)
    (tmp / BUILD_FILE).write_text(json.dumps(info, indent=2))
    shutil.rmtree(path, ignore_errors=True)
    tmp.rename(path)
    print(f"{lang} lemmatiser built in {info['seconds_total']:.0f} s: {json.dumps(info['accuracy'])}", file=sys.stderr)


def _training_docs(lang: str):
    """(train, dev) spaCy Docs with gold lemmas, ten sentences a doc (spaCy's conllu converter)."""
    train_files, dev_files = training_files(lang)
    train = [d for f in train_files for d in _conllu_docs(f)]
    if dev_files:
        return train, [d for f in dev_files for d in _conllu_docs(f)]
    # No separate file: every tenth doc (seeded) is kept apart for choosing the best checkpoint.
    order = list(range(len(train)))
    random.Random(RECIPE["seed"]).shuffle(order)
    dev = set(order[: max(1, len(train) // 10)])
    return [d for i, d in enumerate(train) if i not in dev], [d for i, d in enumerate(train) if i in dev]


def _conllu_docs(path: Path):
    from spacy.training.converters import conllu_to_docs
    return list(conllu_to_docs(path.read_text(encoding="utf-8"), n_sents=10, no_print=True))


def _docbin(docs):
    from spacy.tokens import DocBin
    return DocBin(docs=docs, store_user_data=False)


def _count(docs) -> int:
    return sum(len(list(d.sents)) if d.has_annotation("SENT_START") else 1 for d in docs)


def _gold_sentences(path: Path) -> list[list[tuple[str, str, str]]]:
    """(form, lemma, UPOS) of every word of a CoNLL-U file, one list per sentence."""
    sentences: list[list[tuple[str, str, str]]] = []
    current: list[tuple[str, str, str]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            if current:
                sentences.append(current)
                current = []
            continue
        cols = line.split("\t")
        if line.startswith("#") or len(cols) != 10 or not cols[0].isdigit():
            continue
        current.append((cols[1], cols[2], cols[3]))
    if current:
        sentences.append(current)
    return sentences


def evaluate(model: Path, lang: str) -> dict:
    """Lemma accuracy on held-out gold tokens, lower-cased as the matching function compares them
    (the lexicon check included where the language has one): all words, and the content words
    (NOUN, PROPN, VERB, ADJ) that lemma overlap is about."""
    from spacy.tokens import Doc

    lemmatiser = load_lemmatiser(model, lang)
    nlp = lemmatiser.nlp
    sets = {"pud": pud_path(lang)}
    if lang == "en":
        sets["ewt_test"] = training_files("en")[0][0].with_name("en_ewt-ud-test.conllu")
    scores = {}
    for name, path in sets.items():
        sentences = _gold_sentences(path)
        docs = nlp.pipe((Doc(nlp.vocab, words=[w for w, _, _ in s]) for s in sentences), batch_size=256)
        total = right = content = content_right = 0
        for sentence, doc in zip(sentences, docs):
            for (_form, gold, upos), token in zip(sentence, doc):
                ok = lemmatiser.lemma_of(token) == gold.lower()
                total += 1
                right += ok
                if upos in ("NOUN", "PROPN", "VERB", "ADJ"):
                    content += 1
                    content_right += ok
        scores[name] = {"words": total, "lemma_acc": round(right / total, 4),
                        "content_lemma_acc": round(content_right / max(1, content), 4)}
    return scores


@lru_cache(maxsize=4)
def lemmatiser(lang: str) -> Lemmatiser:
    """The lemmatiser of `lang`, loaded once per process; built first (a minute, once, said on
    stderr) where it is not built yet: no set-up step builds it (issue 36). Here, beside the
    build, so the loader (workbench.privacy.inference_attacks.lemmatiser) never imports the builder back."""
    path = build_lemmatiser(lang)
    try:
        import spacy  # noqa: F401 - only asks whether the extra is installed
    except ModuleNotFoundError as exc:
        raise MissingExtra("the lemmatiser of the inference attack", "spacy", exc.name) from None
    return load_lemmatiser(path, lang)
