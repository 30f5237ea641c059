"""An outage in the middle of a run (the stand-in's `refuse` fault): the spans it cost are
FAILED with notes the engine counts as unreachable, and retrying the run's FAILED spans once
the server is back fills exactly those, without asking the answered windows again."""

from __future__ import annotations

import pytest
from llm_helpers import refused

from tests.helpers.waiting import wait_until
from workbench.adapters.ollama import OllamaGenerator
from workbench.generator_contract import GenerationOptions
from workbench.generator_contract.base import is_unreachable
from workbench.llm.config import OllamaConfig, OllamaSettings
from workbench.pipeline import generate_run

MODEL = "smollm2:135m-instruct"  # the name the stand-in serves (fixtures: tests/conftest.py)


def generator(url):
    settings = OllamaSettings(model=MODEL, host=url, attempts=2, backoff=0.0, give_up_after=2)
    return OllamaGenerator(OllamaConfig(settings),
                           GenerationOptions(mode="maskL"))


@pytest.mark.slow
def test_spans_lost_to_an_outage_are_retried_after_it(own_standin, store, opening):
    corpus = opening("en")
    own_standin.fault("canned", times=-1)  # quick answers: this test is about the outage

    def outage(done: int) -> None:
        if done == 2:  # after two answered batches the server stops listening for a while
            own_standin.fault("refuse", seconds=15)
            wait_until(lambda: refused(own_standin.url), 10, "the stand-in to refuse connections")

    first = generate_run(corpus, generator(own_standin.url), store=store, tagger="spacy", progress=False,
                         batch_size=1, after_batch=outage)
    assert first.run.status == "complete" and first.stored == corpus.n_slots
    assert 0 < first.failed == first.unreachable < corpus.n_slots
    before = {(p.doc_id, p.span_index): p for p in store.predictions(first.run_id)}
    lost = {k for k, p in before.items() if p.failed}
    assert all(is_unreachable(p.note) for k, p in before.items() if k in lost)

    wait_until(lambda: not refused(own_standin.url), 60, "the outage to end", interval=0.1)
    own_standin.fault("canned", times=-1)
    asked_before = own_standin.chat_requests()
    again = generate_run(corpus, generator(own_standin.url), store=store, tagger="spacy", progress=False,
                         batch_size=1, retry_failed=True)
    assert again.run_id == first.run_id and again.run.status == "complete"
    assert again.stored == corpus.n_slots and again.failed == again.unreachable == 0
    after = {(p.doc_id, p.span_index): p for p in store.predictions(first.run_id)}
    assert {k: p for k, p in after.items() if k not in lost} == {k: p for k, p in before.items() if k not in lost}
    assert all(after[k].pseudonym.startswith("Canned") for k in lost)
    assert 0 < own_standin.chat_requests() - asked_before <= len(lost)  # only the lost spans' windows
