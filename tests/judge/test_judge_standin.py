"""The judge end to end against the Ollama stand-in (a real small model behind Ollama's API,
tests/ollama_standin/): its grammar-constrained answers are tags of the tagset, stored as the
judge; the stand-in's faults (text that is not JSON, a canned answer that names no tag, HTTP 500, a
body that is not Ollama's stream) are retried and end as faults, never as an exception."""

from __future__ import annotations

import pytest

from workbench.annotation.judge import JudgeConfig, judge_items, judge_sample
from workbench.annotation.judge_prompt import PROMPT_VERSION
from workbench.llm.config import OllamaSettings
from workbench.store.judge_faults import faults

MODEL = "smollm2:135m-instruct"  # the name the stand-in serves (fixtures: tests/conftest.py)
JUDGE = f"judge:{MODEL}"


def config(url: str) -> JudgeConfig:
    return JudgeConfig(OllamaSettings(model=MODEL, host=url, attempts=2, backoff=0.0, temperature=0.2,
                                      tokens_per_answer=24))


@pytest.mark.slow
def test_the_real_model_tags_each_item_with_a_tag_of_the_tagset(healthy, judged_store):
    store, run = judged_store
    items = judge_sample(store, [run], per_run=3, unit="span", seed=1)
    summary = judge_items(store, items, config(healthy.url))
    stored = store.annotations(annotators=[JUDGE])
    assert summary.tagged + summary.faults == len(items) == 3 and summary.tagged == len(stored) >= 1
    assert all(a.tag in store.tagset and a.prompt_version == PROMPT_VERSION for a in stored)
    sent = healthy.recent()[-1]
    assert sent["format"]["properties"]["tag"]["enum"] == list(store.tagset.names)


@pytest.mark.slow
@pytest.mark.parametrize("fault, reason", [
    ("invalid-json", "no valid JSON after 2 requests"),
    ("canned", "unknown tag 'Canned 1' (after 2 requests)"),
    # The server's own errors, not "could not be reached" (issue 37).
    ("http500", "server error: HTTP 500: stand-in fault: llama runner process has terminated (after 2 requests)"),
    ("garbage", "server error: malformed response stream (after 2 requests)"),
])
def test_the_standins_faults_are_retried_then_stored_as_faults(healthy, judged_store, fault, reason):
    store, run = judged_store
    items = judge_sample(store, [run], per_run=2, unit="span", seed=2)
    healthy.fault(fault, times=-1)
    summary = judge_items(store, items, config(healthy.url))
    assert summary.faults == 2 and summary.tagged == 0 and summary.requests == 4
    assert [f.reason.startswith(reason) for f in faults(store.run_store, JUDGE)] == [True, True]
    assert store.annotations(annotators=[JUDGE]) == []
    assert summary.verdict.exit_code == 4  # nothing tagged: the command fails, naming the cause
