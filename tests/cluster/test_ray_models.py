"""A torch generator through the Ray executor: the offline masked LM on workers (one torch
thread each, as Ray sets OMP_NUM_THREADS for a one-CPU task) stores what the local run stores."""

from __future__ import annotations

import pytest

from workbench.executors.options import ExecutorOptions
from workbench.pipeline import generate_run
from workbench.store import COMPLETE, RunStore

pytestmark = pytest.mark.slow  # two fill-mask runs over PGV-PII SV: about 2 minutes on 2 cores


def test_fill_mask_sharded_on_workers_equals_the_local_run(ray_cluster, tmp_path):
    options = {"mode": "repL", "upos_filter": True, "seed": 2}
    local = generate_run("pgv-pii-sv", "fill-mask", {"model": "offline"}, options, store=tmp_path / "l.sqlite",
                         progress=False)
    sharded = generate_run("pgv-pii-sv", "fill-mask", {"model": "offline"}, options, store=tmp_path / "r.sqlite",
                           progress=False, cluster=ExecutorOptions("ray", shards=3))
    assert sharded.run_id == local.run_id and sharded.run.status == COMPLETE

    def rows(path):
        with RunStore(path) as store:
            return [(p.doc_id, p.span_index, p.pseudonym, p.candidates, p.rank, p.failed, p.note)
                    for p in store.predictions(local.run_id)]
    assert rows(tmp_path / "r.sqlite") == rows(tmp_path / "l.sqlite")
