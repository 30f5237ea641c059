"""An LLM generator through the Ray executor: its tasks ask for the `ollama` resource and talk to
the Ollama on their own machine (here the stand-in on 127.0.0.1), with the same output as the
local run."""

from __future__ import annotations

import pytest

from workbench.executors.options import ExecutorOptions
from workbench.generator_contract.base import GenerationOptions
from workbench.pipeline import generate_run
from workbench.store import COMPLETE, RunStore

pytestmark = pytest.mark.slow  # the stand-in's real model answers in seconds per span

MODEL = "smollm2:135m-instruct"


def test_an_llm_run_in_two_shards_equals_the_local_run(standin, ray_cluster, tmp_path):
    from llm.conftest import make_opening
    standin.fault("none")
    corpus = make_opening("en", 4, docs=("gv-eng-swe-66", "gv-eng-swe-65"))
    settings = {"model": MODEL, "host": standin.url}
    options = GenerationOptions(mode="repL", upos_filter=True)
    local = generate_run(corpus, "ollama", settings, options, store=tmp_path / "l.sqlite", progress=False)
    before = standin.chat_requests()
    sharded = generate_run(corpus, "ollama", settings, options, store=tmp_path / "r.sqlite", progress=False,
                           cluster=ExecutorOptions("ray", shards=2))
    assert sharded.run_id == local.run_id and sharded.run.status == COMPLETE

    def rows(path):
        with RunStore(path) as store:
            return [(p.doc_id, p.span_index, p.pseudonym, p.candidates, p.failed, p.note, p.requests)
                    for p in store.predictions(local.run_id)]
    stored = rows(tmp_path / "r.sqlite")
    assert stored == rows(tmp_path / "l.sqlite")
    assert sum(r[-1] for r in stored) == standin.chat_requests() - before  # every request was the workers'
