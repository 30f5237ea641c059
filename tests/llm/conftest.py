"""Fixtures of the LLM tests. The Ollama stand-in's (standin, healthy, own_standin) are in
tests/conftest.py, shared with tests/intact and tests/privacy."""

from __future__ import annotations

import pytest

OPENING_SPANS = 8


def make_opening(lang: str, n_spans: int = OPENING_SPANS, docs: tuple[str, ...] = ("gv-eng-swe-66",)):
    """The opening of PGV-PII gv-eng-swe-66 (EN or SV; or of each of `docs`) up to the end of the
    sentence holding its n-th masked span, with the spans inside it: real text and annotations,
    few enough spans to keep the tests that ask the real model within their time budget."""
    from workbench.data_model import Corpus
    from workbench.loaders import shipped_corpus
    from workbench.loaders.validate import RawSpan, build_document
    from workbench.text.slots import SlotBuilder

    corpus = shipped_corpus(f"pgv-pii-{lang}")
    parts = []
    for name in docs:
        doc = corpus.document(f"{name}_" + {"en": "ENG", "sv": "SWE"}[lang])
        cut = SlotBuilder(doc).target_sentence(doc.masked_spans[n_spans - 1])[1]
        raw = [RawSpan(s.start, s.end, s.label, s.entity_id, s.mask) for s in doc.spans if s.end <= cut]
        parts.append(build_document(corpus.source, f"{doc.doc_id}-opening", doc.text[:cut], lang, raw))
    tag = "-".join(name.rsplit("-", 1)[-1] for name in docs)
    return Corpus(f"pgv-pii-{lang}-{tag}-opening", corpus.source, tuple(parts))


@pytest.fixture
def opening():
    return make_opening
