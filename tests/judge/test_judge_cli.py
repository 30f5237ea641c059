"""`workbench annotations judge` and `annotations agreement` through the real entry point, against
a tiny local Ollama; a user's mistake is one line and exit 2, never a traceback."""

from __future__ import annotations

import pytest
from judge_helpers import MODEL, fake_ollama

from tests.helpers.entry_point import wb, wb_ok
from tests.helpers.fake_ollama_http import GARBAGE, HTTP500, scripted_ollama
from workbench.annotation.storage import Annotation


def test_the_judge_tags_a_sample_and_agreement_reports_it_against_the_people(judged_store):
    store, run = judged_store
    path = store.run_store.path
    with fake_ollama(default='{"tag": "POS"}') as server:
        out = wb_ok("annotations", "judge", run[:10], "--model", MODEL, "-o", f"host={server.url}",
                    "--unit", "span", "--per-run", "4", store=path)
    assert f"judge:{MODEL} (prompt judge-1): 4 pseudonyms, 4 tagged now, 0 tagged before, 0 faults" in out
    assert "POS" in out.splitlines()[1]
    judged = store.annotations(annotators=[f"judge:{MODEL}"])
    # anna agrees on two of the four items, bo on none
    store.save_many([Annotation(*a.item, "anna", "POS" if n < 2 else "GRAMMAR") for n, a in enumerate(judged)])
    store.save_many([Annotation(*a.item, "bo", "GRAMMAR") for a in judged])
    out = wb_ok("annotations", "agreement", store=path)
    assert "anna × bo: 4 pseudonyms, observed 0.500" in out
    assert f"judge judge:{MODEL} × anna: 4 pseudonyms, observed 0.500" in out
    assert f"judge judge:{MODEL} × bo: 4 pseudonyms, observed 0.000" in out
    assert "tagged by all 2:" in out  # Fleiss' kappa is the people's


@pytest.mark.parametrize("args, message", [
    (("--model", "fake:1", "-o", "host=http://127.0.0.1:9", "-o", "timeout=3", "-o", "attempts=1"),
     "cannot reach a server at http://127.0.0.1:9"),
    (("--model", "fake:1", "-o", "host=http://10.0.0.7:11434"), "refusing host"),
    (("--model", "fake:1", "-o", "colour=blue"), "colour"),
    (("--model", "fake:1", "--sample", "no-such-sample"), "no sample named 'no-such-sample'"),
])
def test_a_mistake_is_one_line(judged_store, args, message):
    store, run = judged_store
    result = wb("annotations", "judge", run[:10], *args, store=store.run_store.path)
    assert result.returncode == 2 and message in result.stderr and "Traceback" not in result.stderr
    assert store.annotations() == []


def test_a_model_the_server_lacks_is_named(judged_store):
    store, run = judged_store
    with fake_ollama() as server:
        result = wb("annotations", "judge", run[:10], "--model", "qwen:7b", "-o", f"host={server.url}",
                    store=store.run_store.path)
    assert result.returncode == 2 and "has no model 'qwen:7b' (it has: fake:1)" in result.stderr


def test_neither_runs_nor_a_sample_is_a_mistake(judged_store):
    result = wb("annotations", "judge", "--model", "fake:1", store=judged_store[0].run_store.path)
    assert result.returncode == 2 and "name the runs to judge, or a sample with --sample" in result.stderr


def test_a_server_lost_on_the_way_exits_3_and_the_same_command_asks_only_those(judged_store):
    store, run = judged_store
    path = store.run_store.path
    args = ("annotations", "judge", run[:10], "--model", MODEL, "--unit", "span", "--per-run", "3")
    with fake_ollama(script=['{"tag": "POS"}'], default=None) as server:
        lost = wb(*args, "-o", f"host={server.url}", "-o", "attempts=1", "-o", "give_up_after=1", store=path)
    assert lost.returncode == 3, lost.stderr
    assert "2 pseudonym(s) not judged because the server could not be reached" in lost.stderr
    assert "1 tagged now" in lost.stdout and "fault: unreachable" in lost.stdout
    with fake_ollama() as server:
        out = wb_ok(*args, "-o", f"host={server.url}", store=path)
        assert "2 tagged now, 1 tagged before, 0 faults" in out and len(server.requests) == 2


@pytest.mark.parametrize("action, cause", [(HTTP500, "HTTP 500"), (GARBAGE, "malformed response stream")])
def test_a_server_that_answers_only_errors_exits_4_naming_the_cause(judged_store, action, cause):
    """HTTP 500 and a stream that is not Ollama's are the server's errors, not "could not be
    reached" (issue 37): faults with that reason, and exit 4 with the cause and its count."""
    store, run = judged_store
    with scripted_ollama(default=action) as server:
        result = wb("annotations", "judge", run[:10], "--model", MODEL, "--unit", "span", "--per-run", "3",
                    "-o", f"host={server.url}", "-o", "attempts=1", "-o", "give_up_after=0",
                    store=store.run_store.path)
    assert result.returncode == 4, result.stderr
    assert f"fault: server error: {cause} (3)" in result.stdout and "0 tagged now" in result.stdout
    assert f"error: all 3 pseudonym(s) not judged ({cause} × 3); check the server and its model" in result.stderr
    assert "could not be reached" not in result.stderr and "Traceback" not in result.stderr
    assert store.annotations() == []
