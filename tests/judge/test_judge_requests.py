"""The judge against a tiny local Ollama (judge_helpers.fake_ollama): what is stored, what is
retried, what becomes a fault, and what a second call asks again."""

from __future__ import annotations

import pytest
from judge_helpers import MODEL, fake_ollama

from workbench.annotation.judge import JudgeConfig, judge_items, judge_sample
from workbench.annotation.judge_prompt import PROMPT_VERSION
from workbench.infra.errors import WorkbenchError
from workbench.llm.config import OllamaSettings
from workbench.store.judge_faults import faults

JUDGE = f"judge:{MODEL}"


def config(url: str, **settings) -> JudgeConfig:
    return JudgeConfig(OllamaSettings(model=MODEL, host=url, backoff=0.0, **settings))


def test_each_item_gets_the_answered_tag_as_the_judge_with_the_prompt_version(judged_store):
    store, run = judged_store
    items = judge_sample(store, [run], per_run=None)
    with fake_ollama(default='{"tag": "GRAMMAR"}') as server:
        summary = judge_items(store, items, config(server.url))
    stored = store.annotations(annotators=[JUDGE])
    assert len(stored) == len(items) == summary.tagged == summary.requests and summary.faults == 0
    assert {(a.tag, a.source, a.prompt_version) for a in stored} == {("GRAMMAR", "judge", PROMPT_VERSION)}
    assert summary.tags == {"GRAMMAR": len(items)}
    first = server.requests[0]
    assert first["format"]["properties"]["tag"]["enum"] == list(store.tagset.names)
    assert "⟦" in first["messages"][1]["content"]


def test_an_unknown_tag_and_bad_json_are_retried(judged_store):
    store, run = judged_store
    items = judge_sample(store, [run], per_run=None)[:2]
    with fake_ollama(script=['{"tag": "MAYBE"}', "not JSON at all", '{"tag": "pos"}']) as server:
        summary = judge_items(store, items, config(server.url, attempts=3))
    first, second = (store.get((it.run_id, it.doc_id, it.span_index), JUDGE) for it in items)
    assert (first.tag, second.tag) == ("POS", "NO_ERROR")
    assert summary.requests == len(server.requests) == 4 and summary.faults == 0


def test_no_usable_answer_after_the_attempts_is_a_fault_and_the_next_call_asks_again(judged_store):
    store, run = judged_store
    items = judge_sample(store, [run], per_run=None)
    with fake_ollama(default='{"tag": "MAYBE"}') as server:
        summary = judge_items(store, items, config(server.url, attempts=2))
    assert summary.tagged == 0 and summary.faults == len(items) and summary.requests == 2 * len(items)
    assert store.annotations(annotators=[JUDGE]) == []
    stored = faults(store.run_store, JUDGE)
    assert len(stored) == len(items)
    assert {f.reason for f in stored} == {"unknown tag 'MAYBE' (after 2 requests)"}
    assert summary.reasons == {"unknown tag 'MAYBE'": len(items)}
    with fake_ollama() as server:
        again = judge_items(store, items, config(server.url))
    assert again.tagged == len(items) and faults(store.run_store, JUDGE) == []


def test_a_second_call_keeps_what_was_tagged_and_redo_asks_again(judged_store):
    store, run = judged_store
    items = judge_sample(store, [run], per_run=None)
    with fake_ollama() as server:
        judge_items(store, items, config(server.url))
        kept = judge_items(store, items, config(server.url))
        assert kept.kept == len(items) and kept.tagged == 0 and len(server.requests) == len(items)
        redone = judge_items(store, items, JudgeConfig(config(server.url).client, redo=True))
        assert redone.tagged == len(items) and len(server.requests) == 2 * len(items)


def test_a_server_that_is_not_there_is_one_error_before_anything_is_stored(judged_store):
    store, run = judged_store
    with fake_ollama() as server:
        url = server.url  # nothing listens there once the server is gone
    with pytest.raises(WorkbenchError, match="cannot reach a server"):
        judge_items(store, judge_sample(store, [run], per_run=2), config(url, timeout=5))
    assert store.annotations() == [] and faults(store.run_store) == []


def test_a_host_off_this_machine_is_refused_unless_opted_in():
    with pytest.raises(WorkbenchError, match="refusing host"):
        OllamaSettings(model=MODEL, host="http://10.1.2.3:11434")


def test_the_named_sample_is_judged_as_people_see_it(judged_store):
    store, run = judged_store
    from workbench.annotation.sampling import draw_named_sample
    drawn = draw_named_sample(store, "session", [run], per_run=3, unit="span", seed=4)
    assert judge_sample(store, [], sample="session") == drawn
    assert judge_sample(store, [run], per_run=3, unit="span", seed=4) == drawn  # the same recipe, the same items
    with pytest.raises(WorkbenchError, match="name the runs to judge"):
        judge_sample(store, [])
