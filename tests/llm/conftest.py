"""The Ollama stand-in (tests/ollama_standin/) as fixtures: a real small model behind Ollama's
HTTP API on a free 127.0.0.1 port, with fault modes the tests switch on and off."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location(
    "ollama_standin_launch", Path(__file__).resolve().parents[1] / "ollama_standin" / "launch.py")
launch = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = launch  # dataclasses look their module up there
_spec.loader.exec_module(launch)


# The shared stand-in answers two requests at once, so the parallel tests see requests overlap;
# one at a time, the others see no difference (a model per worker, 1 llama.cpp thread each here).
SHARED_WORKERS = 2


def start_standin(workers: int = 1):
    missing = launch.missing_requirements()
    if missing:
        pytest.skip(f"the Ollama stand-in needs {', '.join(missing)}: run .ci/steps/20-llm-standin.sh")
    threads = os.environ.get("STANDIN_THREADS")
    return launch.start(workers=workers, threads=int(threads) if threads else None)


@pytest.fixture(scope="session")
def standin():
    server = start_standin(SHARED_WORKERS)
    yield server
    server.stop()


@pytest.fixture
def healthy(standin):
    """The shared stand-in with no fault left over from an earlier test."""
    standin.fault("none")
    yield standin
    standin.fault("none")


@pytest.fixture
def own_standin():
    """A stand-in of this test's own, free to be killed."""
    server = start_standin()
    yield server
    server.stop()


OPENING_SPANS = 8


def make_opening(lang: str, n_spans: int = OPENING_SPANS, docs: tuple[str, ...] = ("gv-eng-swe-66",)):
    """The opening of PGV-PII gv-eng-swe-66 (EN or SV; or of each of `docs`) up to the end of the
    sentence holding its n-th masked span, with the spans inside it: real text and annotations,
    few enough spans to keep the tests that ask the real model within their time budget."""
    from workbench.loaders import shipped_corpus
    from workbench.loaders.validate import RawSpan, build_document
    from workbench.model import Corpus
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
