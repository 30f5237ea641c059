"""The Swedish stand-in NER tagger: `workbench metrics build-ner-tagger` (and on first use, by NER-type consistency).

No Swedish NER model is installable here, so NER-type consistency (workbench.metrics.ner_consistency)
tags Swedish with a spaCy `ner` component trained on the Swedish PGV-PII corpus's own labels
(personal_name, geographic, institution, date, other: its 708 spans in 10 documents). Its types are
therefore the corpus's labels, and it has seen every original it later tags (there is no held-out
set in 10 documents): on the original side it reads close to the gold labels, and the measure says
how often a replacement, in its context, looks to it like an entity of the original's label.

The only place that trains it; loading (workbench.metrics.backends.ner_models) never builds. Training is
spaCy's default NER model (HashEmbedCNN + transition parser) on a blank Swedish tokenizer, over
chunks of a few sentences, for RECIPE["epochs"] epochs (about a minute on 2 cores). There is no time
guard: one would stop a build early on a slow or busy machine and give it another model than every
other machine's (the offline MLM dropped its guard for the same reason: docs/mlm.md). Built under a
file lock into a temporary folder renamed into place when complete; build.json records epochs,
seconds and the entity F1 on the training documents themselves.
Cached in workbench.infra.paths.cache_dir()/ner-tagger/<lang>-<key>, the key a hash of the recipe, the
corpus file and the spaCy version, so a changed recipe or corpus never reuses a stale model.
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import sys
import time
from pathlib import Path
from typing import TypedDict

from workbench.infra.build_once import built_once
from workbench.infra.errors import MissingExtra, WorkbenchError


class Recipe(TypedDict):
    epochs: int
    seed: int
    dropout: float
    batch_size: int
    sentences_per_example: int


BUILD_FILE = "build.json"
CORPORA = {"sv": "pgv-pii-sv"}  # the shipped corpus whose labels train each language's stand-in
RECIPE: Recipe = {"epochs": 15, "seed": 0, "dropout": 0.2, "batch_size": 8, "sentences_per_example": 3}


def _corpus(lang: str):
    from workbench.loaders.shipped import shipped_corpus
    if lang not in CORPORA:
        raise WorkbenchError(f"no stand-in NER tagger for {lang!r} (known: {', '.join(CORPORA)})")
    return shipped_corpus(CORPORA[lang])


def cache_key(lang: str) -> str:
    from importlib.metadata import version
    digest = hashlib.sha256()
    for doc in _corpus(lang).documents:
        digest.update(json.dumps([doc.doc_id, doc.text, [(s.start, s.end, s.label) for s in doc.spans]]).encode())
    payload = json.dumps({"recipe": RECIPE, "lang": lang, "data": digest.hexdigest(), "spacy": version("spacy")},
                         sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:12]


def standin_dir(lang: str) -> Path:
    """Where the stand-in of `lang` lives (whether or not it is built yet)."""
    from workbench.infra.paths import cache_dir
    return cache_dir() / "ner-tagger" / f"{lang}-{cache_key(lang)}"


def build_command(lang: str) -> str:
    return f"workbench metrics build-ner-tagger --lang {lang}"


def standin_path(lang: str) -> Path:
    """The built stand-in pipeline of `lang`; WorkbenchError with the build command if missing."""
    path = standin_dir(lang)
    if not (path / BUILD_FILE).is_file():
        raise WorkbenchError(f"the {lang} stand-in NER tagger is not built ({path}); build it once (about a minute) "
                             f"with `{build_command(lang)}`, or pass a spaCy NER model with --ner-model {lang}=PATH")
    return path


def build_info(lang: str) -> dict | None:
    path = standin_dir(lang) / BUILD_FILE
    return json.loads(path.read_text()) if path.is_file() else None


def build_standin(lang: str) -> Path:
    """The stand-in's directory, trained first (about a minute) if it is not built yet."""
    return built_once(standin_dir(lang), BUILD_FILE, f"{lang}.lock", lambda path: _build(lang, path))


def _build(lang: str, path: Path) -> None:
    try:
        import spacy
    except ModuleNotFoundError:
        raise MissingExtra("the stand-in NER tagger", "spacy", "spacy") from None
    from spacy.util import minibatch

    tmp = path.with_name(path.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    print(f"building the {lang} stand-in NER tagger (about a minute on 2 idle cores, once) in {path} …",
          file=sys.stderr)
    started = time.time()
    rng = random.Random(RECIPE["seed"])
    spacy.util.fix_random_seed(RECIPE["seed"])
    nlp = spacy.blank(lang)
    nlp.add_pipe("ner")
    examples = training_examples(nlp, _corpus(lang))
    optimizer = nlp.initialize(lambda: examples)
    epochs = RECIPE["epochs"]
    for _ in range(epochs):
        rng.shuffle(examples)
        for batch in minibatch(examples, size=RECIPE["batch_size"]):
            nlp.update(batch, drop=RECIPE["dropout"], sgd=optimizer)
    scores = nlp.evaluate(examples)
    nlp.to_disk(tmp)
    info = {"lang": lang, "corpus": CORPORA[lang], "recipe": RECIPE, "key": path.name, "epochs_run": epochs,
            "examples": len(examples), "seconds": round(time.time() - started, 1),
            "train_ents_f": round(scores["ents_f"], 4), "labels": sorted(nlp.get_pipe("ner").labels)}
    (tmp / BUILD_FILE).write_text(json.dumps(info, indent=2))
    shutil.rmtree(path, ignore_errors=True)
    tmp.rename(path)
    print(f"{lang} stand-in NER tagger built in {info['seconds']:.0f} s ({epochs} epochs; entity F1 on its own "
          f"training documents {info['train_ents_f']})", file=sys.stderr)


def training_examples(nlp, corpus) -> list:
    """spaCy Examples of a few sentences each, the corpus's spans as entities (no span crosses a
    chunk; of overlapping spans the longest is kept, as spaCy's entities cannot overlap)."""
    from spacy.training import Example
    from spacy.util import filter_spans

    from workbench.text.sentences import merge_across_spans, split_sentences

    examples = []
    n = RECIPE["sentences_per_example"]
    for doc in corpus.documents:
        spans = [(s.start, s.end, s.label) for s in doc.spans]
        sentences = merge_across_spans(split_sentences(doc.text, doc.lang), [(a, b) for a, b, _ in spans])
        for k in range(0, len(sentences), n):
            start, end = sentences[k][0], sentences[min(k + n, len(sentences)) - 1][1]
            chunk = nlp.make_doc(doc.text[start:end])
            ents = [chunk.char_span(a - start, b - start, label=label, alignment_mode="expand")
                    for a, b, label in spans if start <= a and b <= end]
            chunk.ents = filter_spans([e for e in ents if e is not None])
            examples.append(Example(nlp.make_doc(chunk.text), chunk))
    return examples
