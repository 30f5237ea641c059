"""`parallel=N` of the ollama generator against the stand-in answering two requests at once (one
model per worker): parallel=2 stores what parallel=1 stores (temperature 0, fixed seed), the
requests really overlapped (the stand-in's peak of answers at once), faults, retries and a dead
server are handled as one at a time, and a run started at parallel 1 resumes at parallel 4.

The corpus is the opening of two PGV-PII EN documents (3 and 4 spans): maskL asks its 4 windows
in one batch, repL asks the k-th spans of both documents together."""

from __future__ import annotations

import socket

import pytest
from llm_helpers import refused

from tests.helpers.waiting import wait_until
from workbench.adapters.ollama import OllamaGenerator
from workbench.generation.engine import run_generation
from workbench.generator_contract import GenerationOptions
from workbench.llm.client import OllamaClient
from workbench.llm.config import OllamaConfig, OllamaSettings
from workbench.pipeline import generate_run
from workbench.store import RunStore
from workbench.text.slots import Gap, Slot
from workbench.upos import get_tagger

MODEL = "smollm2:135m-instruct"  # the name the stand-in serves
DOCS = ("gv-eng-swe-66", "gv-eng-swe-52")
SETTINGS = {"model": MODEL, "temperature": 0.0, "backoff": 0.0, "attempts": 2}


def corpus(opening, spans: int = 3):
    return opening("en", spans, DOCS)


def run(tmp_path, name, corpus, mode, url, parallel, **settings):
    """A complete run in a store of its own (parallel is not in the run id: one store would resume)."""
    store = RunStore(tmp_path / f"{name}.sqlite")
    result = generate_run(corpus, "ollama", {**SETTINGS, "host": url, "parallel": parallel, **settings},
                          {"mode": mode, "seed": 7}, store=store, tagger=get_tagger("spacy", quiet=True),
                          progress=False)
    assert result.run.status == "complete"
    return result, store.predictions(result.run_id)


def stored(preds):
    return [(p.doc_id, p.span_index, p.pseudonym, p.candidates, p.failed, p.note, p.requests) for p in preds]


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["maskL", "repL"])
def test_parallel_2_stores_what_one_at_a_time_stores(healthy, opening, tmp_path, mode):
    assert healthy.stats()["workers"] == 2
    texts = corpus(opening)
    got, peaks, sent = {}, {}, {}
    for parallel in (1, 2):
        healthy.reset_peak()
        before = healthy.chat_requests()
        result, preds = run(tmp_path, f"p{parallel}", texts, mode, healthy.url, parallel)
        got[parallel], peaks[parallel] = (result.run_id, stored(preds)), healthy.peak()
        sent[parallel] = healthy.chat_requests() - before
        assert sum(p.requests for p in preds) == sent[parallel]  # every request counted once, on its span
    assert got[2] == got[1] and len(got[1][1]) == texts.n_slots  # same run id, same predictions
    assert sent[2] == sent[1]
    assert any(not failed for *_, failed, _, _ in got[1][1])  # the model answered something
    assert peaks == {1: 1, 2: 2}  # one at a time, then two answered at once


@pytest.mark.parametrize("fault, failed, requests", [
    ({"mode": "invalid-json", "times": 1, "then": {"mode": "canned", "times": -1}}, False, "one retry"),
    ({"mode": "invalid-json", "times": -1}, True, "all twice"),
])
def test_faults_are_retried_and_failed_as_one_at_a_time(healthy, opening, tmp_path, fault, failed, requests):
    texts = corpus(opening)
    got = {}
    for parallel in (1, 2):
        healthy.fault(**fault)
        _, preds = run(tmp_path, f"p{parallel}", texts, "repL", healthy.url, parallel)
        healthy.fault("none")
        got[parallel] = preds
        assert all(p.failed == failed for p in preds)
        if failed:  # 003 §4 case i for every span, each asked `attempts` times
            assert all(p.note.startswith("no valid JSON after 2 requests") for p in preds)
            assert [p.requests for p in preds] == [2] * len(preds)
        else:  # which span got the bad answer depends on arrival order; that one was asked twice
            assert sorted(p.requests for p in preds) == [1] * (len(preds) - 1) + [2]
            assert all(p.pseudonym.startswith("Canned ") for p in preds)
    assert [(p.span_index, p.pseudonym, p.note) for p in got[2]] == [(p.span_index, p.pseudonym, p.note)
                                                                     for p in got[1]]


def letters(n: int) -> list[Slot]:
    return [Slot("d", "en", i, "PERSON", "PROPN", (f"Letter {i}: dear ", Gap(i, "PERSON", "PROPN"), ", thanks."))
            for i in range(n)]


SLOTS = letters(4)


def unloaded(url, **config):
    """A generator whose client is made without load()'s check that the server has the model."""
    gen = OllamaGenerator(OllamaConfig(OllamaSettings(**{"model": MODEL, "host": url, "temperature": 0.0, **config})),
                          GenerationOptions(mode="repL"))
    gen._client = OllamaClient(gen.config.client, url)
    return gen


def test_refused_connections_are_retried_by_every_request_in_flight(healthy):
    # Made before the outage, so both first requests go out inside it however busy the machine is.
    gen = unloaded(healthy.url, attempts=3, backoff=1.0, parallel=2)
    # It listens again by itself after 2 s, with no fault set: before the third try (1 + 2 s of backoff).
    healthy.fault("refuse", seconds=2.0)
    wait_until(lambda: refused(healthy.url), 5, "the stand-in to refuse connections")
    preds = gen.generate(SLOTS)
    assert [p.requests >= 2 for p in preds[:2]] == [True, True]  # both first requests refused, then answered
    assert not any("connection refused" in p.note or p.note.startswith("unreachable") for p in preds)


def test_nothing_listening_gives_up_once_with_requests_in_flight(capfd):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}"  # bound, never listening: connections refused
        preds = unloaded(url, attempts=2, backoff=0.0, give_up_after=3, parallel=2).generate(letters(12))
    assert all(p.failed and p.note.startswith("unreachable: ") for p in preds)
    skipped = [p for p in preds if "skipped" in p.note]
    assert skipped and skipped[-1] is preds[-1]
    # The count in the note is the one that tipped it, whatever failed after in the other thread.
    assert {p.note for p in skipped} == {f"unreachable: skipped ({url} failed 3 requests in a row)"}
    assert sum(p.requests for p in preds) <= 3 + 1  # three in a row, then at most the other thread's one
    err = capfd.readouterr().err
    assert err.count("The run goes on") == 1 and err.count("without asking") == 1


@pytest.mark.slow
def test_a_server_killed_mid_run_with_two_in_flight_ends_the_run_with_failed_spans(own_standin, store, opening,
                                                                                    capfd):
    texts = opening("en", 8, DOCS)
    own_standin.fault("canned", times=-1)  # quick answers: this test is about the kill
    gen = OllamaGenerator(OllamaConfig(OllamaSettings(model=MODEL, host=own_standin.url, backoff=0.0, attempts=2,
                                                      timeout=60, give_up_after=2, parallel=2)),
                          GenerationOptions(mode="repL"))
    gen.load()
    # repL steps: the k-th span of both documents; two steps answered, then the kill.
    record = run_generation(store, texts, gen, get_tagger("spacy", quiet=True), progress=False,
                            after_batch=lambda done: own_standin.kill() if done == 4 else None)
    preds = store.predictions(record.run_id)
    assert record.status == "complete" and len(preds) == texts.n_slots
    first_two = {(d.doc_id, i) for d in texts.documents for i in d.masked_spans[:2]}
    answered = [p for p in preds if not p.failed]
    assert {(p.doc_id, p.span_index) for p in answered} == first_two
    assert all(p.pseudonym.startswith("Canned") for p in answered)
    later = [p for p in preds if p.failed]
    assert all(p.note.startswith("unreachable: ") for p in later)
    assert any(p.note.startswith("unreachable: skipped") and p.requests == 0 for p in later)
    err = capfd.readouterr().err
    assert "The run goes on" in err and "without asking" in err


def test_a_run_started_at_parallel_1_resumes_at_parallel_4(healthy, opening, tmp_path):
    texts = corpus(opening)
    healthy.fault("canned", times=-1)  # quick answers: this test is about the run id and the resume
    store = RunStore(tmp_path / "resumed.sqlite")
    settings = {**SETTINGS, "host": healthy.url}
    tagger = get_tagger("spacy", quiet=True)

    class Killed(Exception):
        pass

    def kill(done):
        if done == 2:  # the first repL step: span 0 of both documents
            raise Killed

    with pytest.raises(Killed):
        generate_run(texts, "ollama", {**settings, "parallel": 1}, {"mode": "repL"}, store=store, tagger=tagger,
                     progress=False, after_batch=kill)
    [started] = store.runs()
    assert started.status != "complete" and len(store.predictions(started.run_id)) == 2
    before = healthy.chat_requests()
    resumed = generate_run(texts, "ollama", {**settings, "parallel": 4}, {"mode": "repL"}, store=store,
                           tagger=tagger, progress=False)
    assert resumed.run_id == started.run_id and resumed.run.status == "complete"
    assert "parallel" not in resumed.run.signature
    assert healthy.chat_requests() - before == texts.n_slots - 2  # only the spans not yet stored were asked
    assert len(store.predictions(resumed.run_id)) == texts.n_slots
