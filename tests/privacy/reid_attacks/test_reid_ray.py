"""Re-identification attacks scored on a local two-CPU Ray cluster on loopback
(workbench.cluster.attacks): the same stored rows as the local path, stored batches never sent
again, a failed batch named with the batches that finished kept."""

from __future__ import annotations

import sqlite3
import sys

import pytest
import ray
from click.testing import CliRunner

from tests.helpers import waiting
from tests.privacy.reid_helpers import background, corpus, write_run
from workbench.executors.options import ExecutorOptions
from workbench.infra.errors import WorkbenchError
from workbench.privacy.reid_attacks.retrieval import RetrievalAttacker

pytest.importorskip("bm25s")

RAY = ExecutorOptions("ray")


@pytest.fixture(scope="module", autouse=True)
def cluster(ray_cluster):
    # The session's cluster (tests/conftest.py); reid uses it as it is. The workers cannot import tests/.
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    ray.cloudpickle.register_pickle_by_value(waiting)


@pytest.fixture
def two_runs(store, tmp_path, monkeypatch):
    """Two runs of the five-document corpus, attacked two documents a batch (3 batches a run)."""
    from workbench.privacy.reid_attacks import retrieval
    monkeypatch.setattr(retrieval.RetrievalAttacker, "batch_documents", 2)
    c = corpus()
    runs = [write_run(store, c, "original", lambda s: s.text), write_run(store, c, "label", lambda s: s.label)]
    return store, runs, background(tmp_path / "bk.json")


def _stored(store, run_ids):
    """Every stored row but the time it was made."""
    from workbench.privacy.reid_attacks.reid_store import rows_frame
    return rows_frame(store, run_ids).drop(columns="created").sort_values(["run_id", "doc_id"]).reset_index(drop=True)


def _batch_lines(lines):
    return [line for line in lines if line.startswith("batches ")]


def test_rows_through_ray_equal_the_local_ones_and_stored_batches_are_not_sent_again(two_runs, tmp_path):
    import pandas as pd

    from workbench.privacy.reid_attacks.reid import reid_risk
    from workbench.store import RunStore
    store, runs, bk = two_runs
    lines = []
    on_ray = reid_risk(store, runs, background=bk, log=lines.append, cluster=RAY)
    assert (len(_batch_lines(lines)) == 6
            and _batch_lines(lines)[-1].startswith("batches 6/6 · retrieval attack on run "))
    local = RunStore(tmp_path / "local.sqlite")
    for run in runs:  # the same runs in a second store, attacked in this process
        write_run(local, corpus(), store.get_run(run).generator, (lambda s: s.text) if run == runs[0] else
                  (lambda s: s.label))
    pd.testing.assert_frame_equal(reid_risk(local, runs, background=bk), on_ray)
    pd.testing.assert_frame_equal(_stored(local, runs), _stored(store, runs))
    assert _stored(store, runs).n_higher.tolist() != [0] * 10  # the label run hides someone: not all ranked first
    local.close()

    lines.clear()
    reid_risk(store, runs, background=bk, log=lines.append, cluster=RAY)
    assert _batch_lines(lines) == []  # everything stored: nothing sent
    store.db.execute("DELETE FROM reid_results WHERE run_id=? AND doc_id='doc-e'", (runs[1],))
    store.db.commit()
    reid_risk(store, runs, background=bk, log=lines.append, cluster=RAY)
    assert [line.split(" · ")[0] for line in _batch_lines(lines)] == ["batches 1/1"]  # only the batch with doc-e
    pd.testing.assert_frame_equal(_stored(store, runs), _stored(RunStore(tmp_path / "local.sqlite"), runs))


class FailingOnDocE(RetrievalAttacker):
    """Raises on doc-e's text (it names Rui Albergaria), once the driver has stored the other batches
    of run `self.run_id` in the store at `self.store_path` (the signal the batch waits for)."""

    store_path: str
    run_id: str

    def stored_documents(self) -> int:
        db = sqlite3.connect(f"file:{self.store_path}?mode=ro", uri=True, timeout=5)
        try:
            return db.execute("SELECT COUNT(*) FROM reid_results WHERE run_id=?", (self.run_id,)).fetchone()[0]
        finally:
            db.close()

    def scores(self, texts):
        if any("Albergaria" in t for t in texts):
            waiting.wait_until(lambda: self.stored_documents() == 4, 120, "the driver to store batches 1 and 2")
            raise ValueError("no scores for this text")
        return super().scores(texts)


def test_a_failed_batch_ends_the_job_named_and_the_finished_batches_stay_stored(two_runs, monkeypatch):
    from workbench.privacy.reid_attacks import attackers, reid
    store, runs, bk = two_runs
    run = runs[0]

    def failing(*args, **kwargs):
        attacker = attackers.make_attacker(*args, **kwargs)
        attacker.__class__ = FailingOnDocE
        attacker.store_path, attacker.run_id = str(store.path), run
        return attacker
    monkeypatch.setattr(reid, "make_attacker", failing)
    with pytest.raises(WorkbenchError, match=rf"retrieval attack on run {run[:12]}, batch 3/3 \(documents doc-e\) "
                                             "failed: ValueError: no scores for this text; the batches finished"):
        reid.reid_risk(store, [run], background=bk, cluster=RAY)
    assert _stored(store, [run]).doc_id.tolist() == ["doc-a", "doc-b", "doc-c", "doc-d"]

    monkeypatch.setattr(reid, "make_attacker", attackers.make_attacker)
    lines = []
    assert reid.reid_risk(store, [run], background=bk, log=lines.append, cluster=RAY).iloc[0].n_documents == 5
    assert [line.split(" · ")[0] for line in _batch_lines(lines)] == ["batches 1/1"]


def test_the_trained_attacker_travels_built_and_without_the_drivers_log(tiny_bert, tmp_path, monkeypatch):
    import shutil
    import threading

    from tests.privacy.reid_helpers import PEOPLE, TEMPLATE
    from workbench.cluster.attacks import _travelling
    from workbench.privacy.reid_attacks.attackers import make_attacker
    from workbench.privacy.reid_attacks.background import load_background
    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path / "cache"))
    lock = threading.Lock()  # a log that cannot be pickled, as a benchmark's (an open file) may be
    attacker = make_attacker("trained", load_background(background(tmp_path / "bk.json")), {
        "base_model": str(tiny_bert), "window": "32", "overlap": "8", "epochs": "1", "batch_size": "4",
        "device": "cpu"}, log=lambda message: lock.locked())
    shipped = ray.cloudpickle.dumps(_travelling(attacker))
    shutil.rmtree(tmp_path / "cache")  # a worker elsewhere has no cache: the model travels in the attacker
    texts = [TEMPLATE.format(**p) for p in PEOPLE.values()]
    assert (ray.cloudpickle.loads(shipped).scores(texts) == attacker.scores(texts)).all()


@pytest.mark.slow  # the workers import torch and transformers: 20 s
def test_the_trained_attacker_on_ray_scores_as_locally(tiny_bert, store, tmp_path, monkeypatch):
    import pandas as pd

    from workbench.privacy.reid_attacks.reid import reid_risk
    from workbench.store import RunStore
    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path / "cache"))
    options = {"base_model": str(tiny_bert), "window": "32", "overlap": "8", "epochs": "1", "batch_size": "4",
               "device": "cpu"}
    bk = background(tmp_path / "bk.json")
    run = write_run(store, corpus(), "original", lambda s: s.text)
    lines = []
    on_ray = reid_risk(store, [run], attacker="trained", background=bk, config=options, log=lines.append, cluster=RAY)
    assert _batch_lines(lines)[-1].startswith("batches 1/1 · trained attack on run ")  # 5 documents, 8 a batch
    local = RunStore(tmp_path / "local.sqlite")
    write_run(local, corpus(), "original", lambda s: s.text)
    pd.testing.assert_frame_equal(reid_risk(local, [run], attacker="trained", background=bk, config=options), on_ray)
    pd.testing.assert_frame_equal(_stored(local, [run]), _stored(store, [run]))
    local.close()


def test_the_cli_attacks_on_ray_and_refuses_a_cluster_off_this_machine(tmp_path):
    from workbench.cli import main
    from workbench.store import RunStore
    path = tmp_path / "s.sqlite"
    with RunStore(path) as store:
        run = write_run(store, corpus(), "original", lambda s: s.text)
    bk = str(background(tmp_path / "bk.json"))
    base = ["privacy", "reid", run[:12], "--background", bk, "--store", str(path), "--executor", "ray"]
    result = CliRunner().invoke(main, base + ["--address", "ray://10.1.2.3:10001"])
    assert result.exit_code != 0 and isinstance(result.exception, SystemExit)
    assert "10.1.2.3 is not this machine" in result.output and "--allow-remote" in result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1
    result = CliRunner().invoke(main, base + ["--shards", "2"])  # an attack's tasks are its batches
    assert result.exit_code == 2 and "--shards is for generation" in result.output
    result = CliRunner().invoke(main, base)
    assert result.exit_code == 0, result.output
    assert "batches 1/1 · retrieval attack on run " in result.output and "1.000" in result.output
