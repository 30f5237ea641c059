"""`-g intact -o parallel=2` against the stand-in answering two requests at once: the engine's repL
batch holds the k-th span of both documents, their decisions (candidates, then attacks, one after
the other) run side by side, and the run stores what parallel=1 stores (temperature 0, fixed seed)
with the same requests. Two spans per document, two candidates and two guesses each, to keep the
real model's answers few."""

from __future__ import annotations

import pytest

from tests.helpers.corpus import document_with_mentions
from workbench.data_model import Corpus
from workbench.pipeline import generate_run
from workbench.store import RunStore

pytestmark = pytest.mark.slow
MODEL = "smollm2:135m-instruct"  # the name the stand-in serves (fixtures: tests/conftest.py)
DOCS = {
    "d1": ("Mr Kowalski was born in Warsaw. He worked for the Polish Academy of Sciences for years.",
           [("Warsaw", "LOC"), ("Polish Academy of Sciences", "ORG")]),
    "d2": ("Ms Berg grew up in Uppsala. She later taught at the Royal Institute of Technology.",
           [("Uppsala", "LOC"), ("Royal Institute of Technology", "ORG")]),
}


def corpus() -> Corpus:
    docs = []
    for doc_id, (text, mentions) in DOCS.items():
        docs.append(document_with_mentions("intact", doc_id, text, mentions))
    return Corpus("intact-parallel", "tests/intact", tuple(docs))


def test_parallel_2_decides_as_one_at_a_time(healthy, tmp_path):
    from workbench.privacy.inference_attacks.lemmatiser_build import build_lemmatiser
    from workbench.upos import get_tagger
    build_lemmatiser("en")  # built once by .ci/steps/12-lemmatiser.sh; here only if that has not run
    assert healthy.stats()["workers"] == 2
    got, peaks, sent = {}, {}, {}
    for parallel in (1, 2):
        store = RunStore(tmp_path / f"p{parallel}.sqlite")  # parallel is not in the run id: one store would resume
        healthy.reset_peak()
        before = healthy.chat_requests()
        result = generate_run(corpus(), "intact", {"model": MODEL, "host": healthy.url, "backoff": 0,
                                                   "temperature": 0.0, "candidates": 2, "guesses": 2,
                                                   "parallel": parallel},
                              {"mode": "repL", "window": 50, "seed": 5}, store=store,
                              tagger=get_tagger("spacy", quiet=True), progress=False)
        sent[parallel], peaks[parallel] = healthy.chat_requests() - before, healthy.peak()
        preds = store.predictions(result.run_id)
        assert result.run.status == "complete" and len(preds) == 4
        assert sum(p.requests for p in preds) == sent[parallel]  # every request counted once, on its span
        got[parallel] = (result.run_id, [(p.doc_id, p.span_index, p.pseudonym, p.candidates, p.failed, p.note,
                                          p.requests) for p in preds])
    assert got[2] == got[1] and sent[2] == sent[1]
    assert all(note.startswith("intact: ") or failed for *_, failed, note, _ in got[1][1])
    assert peaks == {1: 1, 2: 2}  # the two documents' spans were decided side by side
