"""Misbehaving servers (the stand-in's fault modes): retries, timeouts, FAILED, and runs that
end with FAILED spans and a message instead of stopping when the server dies or hangs."""

from __future__ import annotations

import json
import socket

import pytest
from llm_helpers import refused

from tests.helpers.entry_point import wb
from tests.helpers.waiting import wait_until
from workbench.adapters.ollama import OllamaGenerator
from workbench.generation.engine import run_generation
from workbench.generator_contract import GenerationOptions
from workbench.infra.errors import WorkbenchError
from workbench.llm.client import OllamaClient
from workbench.llm.config import OllamaConfig, OllamaSettings
from workbench.text.slots import Gap, Slot
from workbench.upos import get_tagger

MODEL = "smollm2:135m-instruct"  # the name the stand-in serves (fixtures: tests/conftest.py)

SLOT = Slot("d", "en", 0, "PERSON", "PROPN",
            ("Yesterday ", Gap(0, "PERSON", "PROPN"), " flew from ", Gap(1, "LOC", "PROPN"), " to Rome."))


def generator(url, mode="maskL", **config):
    config = {"model": MODEL, "host": url, "backoff": 0.0, **config}
    gen = OllamaGenerator(OllamaConfig(OllamaSettings(**config)), GenerationOptions(mode=mode))
    gen.load()
    return gen


def unloaded(url, **config):
    """A generator whose client is made without load()'s check that the server has the model."""
    gen = OllamaGenerator(OllamaConfig(OllamaSettings(**{"model": MODEL, "host": url, "backoff": 0.0, **config})),
                          GenerationOptions())
    gen._client = OllamaClient(gen.config.client, url)
    return gen


def test_invalid_json_is_retried(healthy):
    healthy.fault("invalid-json", times=1, then={"mode": "canned", "times": 1})
    before = healthy.chat_requests()
    [p] = generator(healthy.url, attempts=3).generate([SLOT])
    assert healthy.chat_requests() - before == p.requests == 2  # the bad answer, then a good one
    assert p.candidates == ("Canned 1",) and not p.failed


def test_invalid_json_then_the_real_model(healthy):
    healthy.fault("invalid-json", times=1)
    before = healthy.chat_requests()
    [p] = generator(healthy.url, attempts=3).generate([SLOT])
    assert healthy.chat_requests() - before == p.requests == 2
    assert "JSON" not in p.note  # the model's answer parsed (it may still lack the mask: tiny model)


def test_no_valid_json_after_the_attempts_is_failed(healthy):
    healthy.fault("invalid-json", times=-1)
    before = healthy.chat_requests()
    [p] = generator(healthy.url, attempts=3).generate([SLOT])
    assert p.failed and p.note.startswith("no valid JSON after 3 requests")  # 003 §4 case i
    assert healthy.chat_requests() - before == p.requests == 3


def test_json_without_the_mask_key_is_failed_without_retry(healthy):
    healthy.fault("missing-key", times=-1)
    preds = generator(healthy.url, attempts=3).generate([SLOT])
    assert [p.note for p in preds] == ["answer lacks MASK.1"]  # 003 §4 case ii
    assert preds[0].failed and preds[0].requests == 1


def test_a_slow_answer_times_out_and_the_retry_gets_through(healthy):
    healthy.fault("slow", delay=120, times=1, then={"mode": "canned", "times": 1})
    before = healthy.chat_requests()
    [p] = generator(healthy.url, attempts=2, timeout=2).generate([SLOT])
    assert p.requests == 2 == healthy.chat_requests() - before
    assert p.candidates == ("Canned 1",) and not p.failed


def test_a_server_that_never_answers_in_time_gives_failed(healthy):
    healthy.fault("slow", delay=6, times=-1)
    [p] = generator(healthy.url, attempts=2, timeout=1).generate([SLOT])
    assert p.failed and p.note == "unreachable: timeout after 1 s (after 2 requests)" and p.requests == 2


def test_refused_connections_are_retried_until_the_server_is_back(healthy):
    # load() would fail in the outage (the server refuses), so the client is made without its check,
    # before it: the first request goes out inside it however busy the machine is.
    gen = unloaded(healthy.url, attempts=3, backoff=1.0)
    healthy.fault("refuse", seconds=2.0)  # back before the third try (1 + 2 s of backoff)
    wait_until(lambda: refused(healthy.url), 5, "the stand-in to refuse connections")
    [p] = gen.generate([SLOT])
    assert p.requests >= 2 and "connection refused" not in p.note  # refused, waited, answered
    assert not refused(healthy.url)


def test_nothing_listening_fails_fast_and_gives_up(capfd):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}"  # bound, never listening: connections refused
        with pytest.raises(WorkbenchError, match="cannot reach a server"):
            generator(url)
        other = Slot("d", "en", 5, "LOC", "PROPN", ("In ", Gap(5, "LOC", "PROPN"), "."))
        third = Slot("d", "en", 6, "LOC", "PROPN", ("At ", Gap(6, "LOC", "PROPN"), "."))
        preds = unloaded(url, attempts=2, give_up_after=3).generate([SLOT, other, third])
    assert all(p.failed for p in preds)
    assert preds[0].note == "unreachable: connection refused (after 2 requests)"
    assert preds[2].note.startswith("unreachable: skipped (") and preds[2].requests == 0  # gave up after 3 refusals
    err = capfd.readouterr().err
    assert "The run goes on" in err and "without asking" in err


def two_names(tmp_path):
    """A corpus file of two one-sentence documents, a name each: two windows, two requests."""
    path = tmp_path / "two.jsonl"
    path.write_text("".join(json.dumps({"id": n, "text": t, "lang": "en", "label": [[0, 4, "PERSON"]]}) + "\n"
                            for n, t in enumerate(["Anna went to Oslo.", "Olle stayed at home."])), encoding="utf-8")
    return path


def cli_generate(corpus, store, url, *extra):
    return wb("generate", "-c", corpus, "-g", "ollama", "--model", MODEL, "-o", f"host={url}", "-o", "attempts=2",
              "-o", "backoff=0", "--tagger", "spacy", "--no-progress", *extra, store=store, timeout=300)


@pytest.mark.parametrize("fault, cause", [("http500", "HTTP 500"), ("garbage", "malformed response stream")])
def test_a_standin_answering_errors_fails_the_run_naming_the_cause(healthy, tmp_path, fault, cause):
    """Issue 37: HTTP 500 or a body that is not Ollama's stream for every request is not a complete run
    that exits 0, nor "could not be reached": exit 4, the cause and its count named."""
    healthy.fault(fault, times=-1)
    before = healthy.chat_requests()
    result = cli_generate(two_names(tmp_path), tmp_path / "runs.sqlite", healthy.url)
    assert result.returncode == 4, result.stderr
    assert f"2 spans, 2 FAILED ({cause} × 2)" in result.stdout
    assert f"error: all 2 span(s) FAILED ({cause} × 2); check the server and its model" in result.stderr
    assert "--retry-failed" in result.stderr and "could not be reached" not in result.stderr
    assert healthy.chat_requests() - before == 4  # each window asked twice (attempts=2): errors are retried


@pytest.mark.slow
def test_retry_failed_at_another_port_resumes_the_same_run(healthy, own_standin, tmp_path):
    """The run fails against the shared stand-in (HTTP 500), and is retried against another on
    another port: the same run id, its FAILED spans filled, both addresses recorded (issue 37)."""
    corpus, store = two_names(tmp_path), tmp_path / "runs.sqlite"
    healthy.fault("http500", times=-1)
    first = cli_generate(corpus, store, healthy.url)
    assert first.returncode == 4, first.stderr
    assert own_standin.url != healthy.url
    own_standin.fault("canned", times=-1)  # quick answers: this test is about the address
    again = cli_generate(corpus, store, own_standin.url, "--retry-failed")
    assert again.returncode == 0, again.stderr
    assert again.stdout.split()[1] == first.stdout.split()[1] and "2 spans, 0 FAILED" in again.stdout
    assert f"server: {healthy.url} then {own_standin.url}" in again.stdout
    assert own_standin.chat_requests() == 2  # only the two failed windows were asked again


def test_unknown_model_is_an_error_before_the_run(healthy):
    with pytest.raises(WorkbenchError, match="has no model 'qwen2.5:1.5b-instruct'.*smollm2"):
        OllamaGenerator(OllamaConfig(OllamaSettings(host=healthy.url))).load()


@pytest.mark.slow
def test_a_server_killed_mid_run_ends_the_run_with_failed_spans(own_standin, store, opening, capfd):
    corpus = opening("en")
    own_standin.fault("canned", times=-1)  # quick answers: this test is about the kill
    gen = generator(own_standin.url, attempts=2, timeout=60, give_up_after=2)
    # The opening's windows hold spans [0], [1], [2], [3-7]: two answered, then the kill.
    record = run_generation(store, corpus, gen, get_tagger("spacy", quiet=True), batch_size=1, progress=False,
                            after_batch=lambda done: own_standin.kill() if done == 2 else None)
    preds = store.predictions(record.run_id)
    assert record.status == "complete" and len(preds) == corpus.n_slots
    first = set(corpus.documents[0].masked_spans[:2])
    assert all(p.pseudonym.startswith("Canned") for p in preds if p.span_index in first)
    later = [p for p in preds if p.span_index not in first]
    # After the kill a span is FAILED for the dead server, or reuses an answer its window got before.
    for p in later:
        assert (p.failed and (p.note.startswith("unreachable: ")
                              and ("connection refused" in p.note or "skipped" in p.note))) or p.requests == 0
    assert any(p.note.startswith("unreachable: skipped") for p in later)
    err = capfd.readouterr().err
    assert "The run goes on" in err and "without asking" in err


@pytest.mark.slow
def test_a_server_hung_mid_run_ends_the_run_with_failed_spans(healthy, store, opening, capfd):
    corpus = opening("sv")
    # The first window is answered, then the server goes silent (answers in 120 s: never, here).
    healthy.fault("canned", times=1, then={"mode": "slow", "delay": 120, "times": -1})
    gen = generator(healthy.url, attempts=2, timeout=2, give_up_after=2)
    record = run_generation(store, corpus, gen, get_tagger("spacy", quiet=True), batch_size=4, progress=False)
    preds = store.predictions(record.run_id)
    assert record.status == "complete" and len(preds) == corpus.n_slots
    transport = [p for p in preds if p.note.startswith("unreachable: ")]
    before_hang = [p for p in preds if p not in transport]
    assert any(p.requests for p in before_hang) and before_hang[0].pseudonym == "Canned 1"
    assert all(p.failed for p in transport)
    assert transport[0].note == "unreachable: timeout after 2 s (after 2 requests)"
    assert transport[-1].note.startswith("unreachable: skipped") and transport[-1].requests == 0  # given up
    assert "without asking" in capfd.readouterr().err
