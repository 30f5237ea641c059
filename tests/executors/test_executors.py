"""Executors as plug-ins (issue 38): one interface that generation, benchmarks and attacks call,
a Registry of them, and no caller that asks which one it has."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from workbench.executors.local import LocalExecutor
from workbench.executors.options import ExecutorOptions, executor_for
from workbench.executors.registry import EXECUTORS
from workbench.infra.errors import InvalidValue
from workbench.infra.plugins import Entry
from workbench.pipeline import generate_run

ROOT = Path(__file__).resolve().parents[2]


class CountingExecutor(LocalExecutor):
    """A third executor, as a user would add one: the local one, counting what it is given."""
    name = "counting"
    generated: list[str] = []

    def generate(self, store, jobs, **kwargs):
        for record in super().generate(store, jobs, **kwargs):
            CountingExecutor.generated.append(record.run_id)
            yield record


@pytest.fixture
def counting(monkeypatch):
    entries = [*EXECUTORS.entries(), Entry("counting", f"{__name__}:CountingExecutor", "for the test")]
    monkeypatch.setattr(EXECUTORS, "_entries", {e.name: e for e in entries})
    CountingExecutor.generated = []
    return CountingExecutor


def test_the_registry_names_local_first_and_ray(monkeypatch):
    assert EXECUTORS.names()[:2] == ("local", "ray")
    assert type(executor_for(None)) is LocalExecutor and ExecutorOptions().executor == "local"
    with pytest.raises(InvalidValue, match="executor must be one of local, ray, not 'spark'"):
        ExecutorOptions("spark")


def test_an_executor_refuses_what_it_cannot_honour():
    with pytest.raises(InvalidValue, match="--address and --shards need --executor ray"):
        ExecutorOptions("local", shards=2)
    with pytest.raises(InvalidValue, match="--allow-remote needs --executor ray"):
        ExecutorOptions("local", allow_remote=True)


def test_a_third_executor_is_one_class_and_one_entry(counting, tiny_corpus, store):
    result = generate_run(tiny_corpus, "random", store=store, tagger="spacy", progress=False,
                          cluster=ExecutorOptions("counting"))
    assert counting.generated == [result.run_id] and result.run.status == "complete"
    assert result.stored == tiny_corpus.n_slots
    local = generate_run(tiny_corpus, "random", store=store, tagger="spacy", progress=False)
    assert local.run_id == result.run_id and counting.generated == [result.run_id]  # same run, reused


def test_no_caller_branches_on_the_executor_outside_the_registry():
    """`--executor` is decided by the registry: a caller that asks `executor == "ray"` (or the old
    `.distributed`) would be a place a new executor must be added by hand."""
    pattern = re.compile(r"executor\s*[!=]=|\.distributed\b|executor\s+in\s+\(")
    found = []
    for folder in ("workbench", "adapters"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "executors" in path.relative_to(ROOT).parts:
                continue
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if pattern.search(line.split("#")[0]):
                    found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not found, "branches on the executor's name:\n" + "\n".join(found)
