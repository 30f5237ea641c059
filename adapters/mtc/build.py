"""From text to a checkpoint: phrase vocabulary → trained phrase rows → checkpoint directory.

This is the library behind `workbench mtc train`; tests and the CI step call it too.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

from workbench.adapters.mtc.phrases import build_vocabulary, noun_phrase_occurrences, sensitive_span_occurrences

# The settings live in the light module workbench.adapters.mtc.settings; imported here under their old names.
from workbench.adapters.mtc.settings import (  # noqa: F401
    DEFAULT_CORPUS,
    KINDS,
    UD_FILES,
    BuildRecipe,
    TrainSettings,
    VocabularySettings,
    default_vocabulary,
)
from workbench.adapters.mtc.split import split_documents
from workbench.data_model import Corpus
from workbench.infra.errors import WorkbenchError

SIDE_FILES = ("casing.json",)


def default_conllu(lang: str) -> tuple[str, ...]:
    from workbench.mlm.data import ud_train_dir
    if lang not in UD_FILES:
        raise WorkbenchError(f"no default tagged corpus for {lang!r}; pass CoNLL-U files")
    files = tuple(str(ud_train_dir() / f) for f in UD_FILES[lang])
    missing = [f for f in files if not Path(f).is_file()]
    if missing:
        raise WorkbenchError(f"MTC noun phrases come from UD treebanks, but {', '.join(missing)} is missing; "
                             "set WORKBENCH_UD_TRAIN or pass --conllu FILE")
    return files


def _sha256_files(paths) -> str:
    import hashlib
    h = hashlib.sha256()
    for p in paths:
        h.update(Path(p).name.encode())
        h.update(Path(p).read_bytes())
    return h.hexdigest()


def collect_occurrences(recipe: BuildRecipe, corpus: Corpus | None):
    """(occurrences, source description, document split or None) for the recipe's kind."""
    if recipe.kind == "ss-mtc":
        if corpus is None:
            raise WorkbenchError("ss-mtc takes its phrases from a corpus's annotated spans: give a corpus")
        other = sorted({d.lang for d in corpus.documents} - {recipe.lang})
        if other:
            raise WorkbenchError(f"corpus {corpus.name} holds {', '.join(other)} documents; the checkpoint is "
                                 f"{recipe.lang} (select documents with --docs)")
        split = split_documents(corpus, recipe.train_fraction, recipe.split_seed)
        train_ids = set(split.train)
        occurrences = sensitive_span_occurrences(d for d in corpus.documents if d.doc_id in train_ids)
        source = {"corpus": corpus.name, "corpus_source": corpus.source, "corpus_hash": corpus.content_hash,
                  "documents": len(split.train), "spans": len(occurrences)}
        return occurrences, source, split
    files = recipe.conllu or default_conllu(recipe.lang)
    occurrences = noun_phrase_occurrences(files)
    source = {"conllu": [str(f) for f in files], "conllu_sha256": _sha256_files(files),
              "noun_phrases": len(occurrences)}
    return occurrences, source, None


def phrase_vocabulary(recipe: BuildRecipe, corpus: Corpus | None, tokenizer=None):
    """(PhraseVocabulary, (source, split)) without training; loads only the tokenizer if none is given."""
    occurrences, source, split = collect_occurrences(recipe, corpus)
    if tokenizer is None:
        from transformers import AutoTokenizer

        from workbench.mlm.loading import resolve
        tokenizer = AutoTokenizer.from_pretrained(resolve(recipe.base_model, recipe.lang))
    v = recipe.vocabulary
    vocab = build_vocabulary(occurrences, tokenizer, min_count=v.min_count, sentences_per_phrase=v.sentences_per_phrase,
                             max_phrases=v.max_phrases, test_fraction=v.test_fraction, seed=v.seed)
    return vocab, (source, split)


def build_checkpoint(recipe: BuildRecipe, out: str | Path, *, corpus: Corpus | None = None,
                     progress: Callable[[str, int, int], None] | None = None, extra: dict | None = None) -> dict:
    """Build the vocabulary, train, write the checkpoint to `out`; returns its metadata.

    SS-MTC needs `corpus` (its documents are split by train_fraction); MTC reads CoNLL-U."""
    from workbench.adapters.mtc.checkpoint import save_checkpoint
    from workbench.adapters.mtc.train_phrases import train_phrase_rows
    from workbench.mlm.loading import load_masked_lm, resolve
    from workbench.store.signature import library_versions

    started = time.time()
    base = resolve(recipe.base_model, recipe.lang)
    mlm = load_masked_lm(base, lang=recipe.lang, max_tokens=recipe.train.max_tokens)
    vocab, (source, split) = phrase_vocabulary(recipe, corpus, mlm.tokenizer)
    if not vocab.phrases:
        raise WorkbenchError(f"no phrase occurs {recipe.vocabulary.min_count} times or more in the {recipe.kind} "
                             "text; lower --min-count")
    head, report = train_phrase_rows(mlm, vocab, recipe.train, progress=progress)
    metadata = {
        "kind": recipe.kind,
        "lang": recipe.lang,
        "base_model": recipe.base_model,
        "base_model_path": base,
        "recipe": asdict(recipe),
        "source": source,
        "split": None if split is None else {
            "corpus": split.corpus_name, "corpus_hash": split.corpus_hash, "train_fraction": split.train_fraction,
            "seed": split.seed, "train_docs": list(split.train), "heldout_docs": list(split.held_out)},
        "phrase_sentences": len(vocab.sentences),
        "report": report.to_dict(),
        "build_seconds": round(time.time() - started, 1),
        "versions": library_versions(),
        **(extra or {}),
    }
    return save_checkpoint(out, model=mlm.model, tokenizer=mlm.tokenizer, head=head, vocab=vocab, metadata=metadata,
                           train_docs=split.train if split else (), heldout_docs=split.held_out if split else (),
                           extra_model_files=_extra_model_files(base))


def _extra_model_files(base_model: str) -> list[Path]:
    """Side files of a local base model that save_pretrained does not write: the offline
    model's casing.json (lower-cased form → written form, to re-capitalise fills)."""
    root = Path(base_model)
    return [root / name for name in SIDE_FILES if (root / name).is_file()]


# ---- the default checkpoints (what the generators load without -o checkpoint=DIR) ----

def default_recipe(kind: str, lang: str = "en") -> BuildRecipe:
    return BuildRecipe(kind=kind, lang=lang, vocabulary=default_vocabulary(kind))


# The modules whose code makes a checkpoint (everything here but the generator over it).
_BUILD_SOURCES = ("__init__", "build", "checkpoint", "encode", "head", "phrases", "scorer", "settings", "split",
                  "train_phrases", "ud_np")
# This package was workbench/emat until issue 25 moved it beside its generator. The hash reads
# the code with its old names, so that a move (which rewrites import lines, nothing else) does
# not make every stored checkpoint, and the run ids naming it, stale.
_OLD_NAMES = (("workbench.adapters.mtc", "workbench.emat"), ("adapters/mtc/", "workbench/emat/"),
              ("workbench.adapters.masked_lm.base", "workbench.adapters.mlm_base"))


def _source_hash() -> str:
    import hashlib
    h = hashlib.sha256()
    for name in _BUILD_SOURCES:
        text = (Path(__file__).parent / f"{name}.py").read_text(encoding="utf-8")
        for new, old in _OLD_NAMES:
            text = text.replace(new, old)
        h.update(text.encode("utf-8"))
    return h.hexdigest()


def default_key(recipe: BuildRecipe, corpus: Corpus | None) -> str:
    """Changes with the recipe, the base model (the offline model's directory carries its own
    key), the training text and the code of this package (_BUILD_SOURCES): any of them means a rebuild."""
    import hashlib
    import json

    from workbench.mlm.loading import resolve
    data = corpus.content_hash if corpus is not None else _sha256_files(recipe.conllu or default_conllu(recipe.lang))
    payload = json.dumps([asdict(recipe), resolve(recipe.base_model, recipe.lang), data, _source_hash()],
                         sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def ensure_default(kind: str, lang: str = "en", *, progress=None) -> tuple[Path, bool]:
    """Build the default checkpoint of `kind` unless an up-to-date one is there: (path, built)."""
    import fcntl
    import json

    from workbench.adapters.mtc.checkpoint import default_checkpoint
    from workbench.loaders import shipped_corpus
    from workbench.mlm.loading import resolve
    if kind == "ss-mtc" and lang not in DEFAULT_CORPUS:
        raise WorkbenchError(f"no default SS-MTC training corpus for {lang!r}: use `workbench mtc train -c CORPUS`")
    recipe = default_recipe(kind, lang)
    # The base model must be there first: a WorkbenchError naming `workbench mlm build-offline`
    # if not (.ci runs that step before this one); nothing here trains it behind the user's back.
    resolve(recipe.base_model, lang)
    corpus = shipped_corpus(DEFAULT_CORPUS[lang]) if kind == "ss-mtc" else None
    key = default_key(recipe, corpus)
    path = default_checkpoint(kind, lang)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.parent / f"{path.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two processes never build the same checkpoint at once
        meta = path / "metadata.json"
        if meta.is_file() and json.loads(meta.read_text(encoding="utf-8")).get("build_key") == key:
            return path, False
        print(f"building the default {kind} checkpoint (about a minute on 2 idle cores, once) in {path} …",
              file=sys.stderr)
        build_checkpoint(recipe, path, corpus=corpus, progress=progress, extra={"build_key": key})
    return path, True
