"""Corpora shipped in the repository's corpora/ folder, by name, and loading any file by format."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from workbench.data_model import Corpus
from workbench.infra.errors import CorpusError, WorkbenchError
from workbench.infra.paths import corpora_dir, pud_treebank  # corpora_dir: also this module's API
from workbench.loaders.corpus_formats import CORPUS_FORMATS, format_for


@dataclass(frozen=True, slots=True)
class ShippedCorpus:
    name: str
    description: str
    load: Callable[[], Corpus]


def _pgv(lang: str | None) -> Callable[[], Corpus]:
    def load() -> Corpus:
        from workbench.loaders.doccano_jsonl import load_doccano_jsonl
        name = "pgv-pii" if lang is None else f"pgv-pii-{lang}"
        return load_doccano_jsonl(corpora_dir() / "pgv-pii" / "gv-pii-2.0_SweLLified.jsonl", name=name,
                                  languages=None if lang is None else (lang,))
    return load


def _tab_test() -> Corpus:
    from workbench.loaders.tab_pair import load_tab_pair
    tab = corpora_dir() / "tab"
    return load_tab_pair(tab / "TAB_test_texts.json", tab / "TAB_test_spans.json", name="tab-test")


SHIPPED: dict[str, ShippedCorpus] = {c.name: c for c in (
    ShippedCorpus("pgv-pii-en", "PGV-PII, the 10 English Global Voices articles (doccano JSONL)", _pgv("en")),
    ShippedCorpus("pgv-pii-sv", "PGV-PII, their 10 Swedish translations", _pgv("sv")),
    ShippedCorpus("pgv-pii", "PGV-PII, both languages (20 documents)", _pgv(None)),
    ShippedCorpus("tab-test", "TAB test split, 127 ECHR judgments (English; text + span files)", _tab_test),
)}

FORMATS = CORPUS_FORMATS.names()  # doccano, tab-release, tab-pair: the --format choices


def shipped_corpus(name: str) -> Corpus:
    if name not in SHIPPED:
        import difflib
        close = difflib.get_close_matches(name, SHIPPED, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else f" (shipped: {', '.join(SHIPPED)})"
        raise WorkbenchError(f"no shipped corpus {name!r}{hint}")
    from workbench.loaders import problems
    with problems.quietly():  # their few word cuts are known (docs/corpora.md); a user's file is told
        return SHIPPED[name].load()


def load_corpus(spec: str, *, format: str | None = None, lang: str | None = None,
                spans: str | None = None, annotator: str | None = None,
                quality_checked_only: bool = False) -> Corpus:
    """A shipped corpus name, or a path read with `format` (guessed from the extension)."""
    if spec in SHIPPED and format is None:
        return shipped_corpus(spec)
    path = Path(spec)
    if not path.exists():
        if format is None and os.sep not in spec and "." not in spec:
            shipped_corpus(spec)  # raises with a did-you-mean
        raise CorpusError(spec, "no such file")
    reader = CORPUS_FORMATS.load(format or format_for(path))  # an unknown name: InvalidValue, the nearest named
    return reader.load(path, lang=lang, spans=spans, annotator=annotator, quality_checked_only=quality_checked_only)


def vocabulary_path(lang: str) -> Path:
    """The UD PUD treebank whose forms and gold UPOS feed the baselines (003 §4)."""
    return pud_treebank(lang)
