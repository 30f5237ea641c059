"""The Ray executor (workbench.cluster) on a local two-CPU cluster on loopback: the same runs,
ids and exports as the local executor; shards, resumption and faults change nothing stored."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import ray
import worker_generators
from click.testing import CliRunner

from workbench.cli import main
from workbench.exchange.exporters import export_run
from workbench.executors.options import ExecutorOptions
from workbench.generator_contract.base import GenerationOptions
from workbench.infra.errors import WorkbenchError
from workbench.pipeline import generate_run
from workbench.store import COMPLETE, RUNNING, RunStore

RAY = ExecutorOptions("ray")


@pytest.fixture(scope="module", autouse=True)
def cluster(ray_cluster):
    # The session's cluster (tests/conftest.py); the executor uses it as it is.
    ray.cloudpickle.register_pickle_by_value(worker_generators)  # the workers cannot import tests/


def _rows(store_path: Path, run_id: str) -> list[tuple]:
    """What a run stores, but the seconds each span took."""
    with RunStore(store_path) as store:
        return [(p.doc_id, p.span_index, p.pseudonym, p.candidates, p.rank, p.pick_upos, p.failed, p.note,
                 p.upos_fallback) for p in store.predictions(run_id)]


def _exports(store_path: Path, run_id: str, folder: Path) -> dict[str, bytes]:
    """The run's tab and doccano exports as bytes; the csv export's, but its timing column (the
    seconds each span took differ between any two runs, local or not)."""
    import csv
    import io
    with RunStore(store_path) as store:
        files = {fmt: export_run(store, run_id, fmt, folder / f"{run_id}.{fmt}").read_bytes()
                 for fmt in ("tab", "doccano", "csv")}
    table = list(csv.reader(io.StringIO(files["csv"].decode())))
    timing = table[0].index("seconds")
    files["csv"] = repr([row[:timing] + row[timing + 1:] for row in table]).encode()
    return files


def test_a_small_grid_through_ray_equals_the_local_executor(tmp_path):
    from workbench.benchmark.configs import load_benchmark, run_benchmark
    config_file = tmp_path / "grid.toml"
    config_file.write_text('name = "grid"\ndescription = "three runs"\ncorpora = ["pgv-pii-en"]\nseed = 5\n'
                           '[[generators]]\nname = "random"\nmodes = ["maskL", "repL"]\n'
                           '[[generators]]\nname = "upos"\nupos_filter = [true]\nconsistent = ["document"]\n')
    config = load_benchmark(str(config_file))
    local = run_benchmark(config, store=tmp_path / "local.sqlite", progress=False)
    lines = []
    distributed = run_benchmark(config, store=tmp_path / "ray.sqlite", progress=True, log=lines.append,
                                cluster=ExecutorOptions("ray", shards=3))
    assert [r.run_id for r in distributed] == [r.run_id for r in local] and len(local) == 3
    for result in distributed:
        assert result.run.status == COMPLETE
        assert _exports(tmp_path / "ray.sqlite", result.run_id, tmp_path / "r") == \
            _exports(tmp_path / "local.sqlite", result.run_id, tmp_path / "l")
    # Progress: a line per shard, 3 shards per run, 9 in all, each naming the slowest node.
    assert len(lines) == 9 and lines[-1].startswith("shards 9/9 · run ") and "slowest node" in lines[-1]


def test_a_benchmark_attacks_its_runs_on_the_same_cluster(tmp_path):
    import workbench.benchmark
    from workbench.benchmark.configs import load_benchmark, run_benchmark
    ids = Path(workbench.benchmark.__file__).parent / "suites" / "tab-test-16docs.txt"
    config_file = tmp_path / "attacked.toml"
    config_file.write_text(f'name = "attacked"\ndescription = "one run, attacked"\ncorpora = ["tab-test"]\n'
                           f'reid = ["retrieval"]\n[[generators]]\nname = "random"\ndocs = "@{ids}"\n')
    config = load_benchmark(str(config_file))
    local = run_benchmark(config, store=tmp_path / "local.sqlite", progress=False)
    lines = []
    distributed = run_benchmark(config, store=tmp_path / "ray.sqlite", progress=True, log=lines.append,
                                cluster=RAY)
    assert [r.run_id for r in distributed] == [r.run_id for r in local]

    def attack_rows(path):
        with sqlite3.connect(path) as db:
            return db.execute("SELECT run_id, attack_key, doc_id, individual, n_higher, n_tied, top_guess "
                              "FROM reid_results ORDER BY run_id, doc_id").fetchall()
    assert attack_rows(tmp_path / "ray.sqlite") == attack_rows(tmp_path / "local.sqlite") != []
    assert any(line.startswith("batches ") for line in lines) and any(line.startswith("shards ") for line in lines)


@pytest.mark.parametrize("mode, consistent", [("repL", "off"), ("repL", "corpus")])
def test_a_sharded_run_equals_the_unsharded_one(tmp_path, mode, consistent):
    options = {"mode": mode, "upos_filter": True, "consistent": consistent, "seed": 3}
    local = generate_run("pgv-pii-sv", "upos", options=options, store=tmp_path / "l.sqlite", progress=False)
    sharded = generate_run("pgv-pii-sv", "upos", options=options, store=tmp_path / "r.sqlite", progress=False,
                           cluster=ExecutorOptions("ray", shards=4))
    assert sharded.run_id == local.run_id and sharded.run.status == COMPLETE
    assert _rows(tmp_path / "r.sqlite", local.run_id) == _rows(tmp_path / "l.sqlite", local.run_id)


def test_a_worker_killed_mid_shard_changes_nothing(tmp_path):
    options = GenerationOptions(mode="repL", seed=9)
    local = generate_run("pgv-pii-en", "random", options=options, store=tmp_path / "l.sqlite", progress=False)
    killer = worker_generators.KilledOnce(options=options)
    killer.marker = str(tmp_path / "killed")
    result = generate_run("pgv-pii-en", killer, store=tmp_path / "r.sqlite", progress=False, batch_size=8,
                          cluster=ExecutorOptions("ray", shards=2))
    assert Path(killer.marker).exists()  # a worker did die, and Ray ran its shard again
    assert result.run_id == local.run_id and result.run.status == COMPLETE
    assert _rows(tmp_path / "r.sqlite", local.run_id) == _rows(tmp_path / "l.sqlite", local.run_id)


def test_a_worker_loads_the_model_once_for_all_its_shards(tmp_path):
    from collections import Counter
    counting = worker_generators.CountsLoads(options=GenerationOptions(seed=8))
    counting.log = str(tmp_path / "log")
    generate_run("pgv-pii-en", counting, store=tmp_path / "r.sqlite", progress=False, batch_size=1000,
                 cluster=ExecutorOptions("ray", shards=10))
    events = Path(counting.log).read_text().split("\n")[:-1]
    loads = Counter(e.split()[1] for e in events if e.startswith("load"))
    shards = Counter(e.split()[1] for e in events if e.startswith("batch"))  # one batch per shard here
    assert sum(shards.values()) == 10 and set(loads) == set(shards)
    assert set(loads.values()) == {1}  # each worker process loaded once, whatever number of shards it ran
    assert len(loads) < 10  # and workers were reused: fewer loads than tasks


def test_a_shard_that_keeps_failing_ends_the_job_naming_it_and_keeps_the_rest(tmp_path):
    options = GenerationOptions(seed=4)
    failing = worker_generators.FailsOn(options=options)
    failing.doc_id = "gv-eng-swe-191_ENG"
    with pytest.raises(WorkbenchError) as error:
        generate_run("pgv-pii-en", failing, store=tmp_path / "r.sqlite", progress=False,
                     cluster=ExecutorOptions("ray", shards=5, max_retries=0))
    message = str(error.value)
    assert "shard 3/5" in message and "gv-eng-swe-191_ENG" in message and "cannot do that document" in message
    with RunStore(tmp_path / "r.sqlite") as store:
        [run] = store.runs()
        stored_docs = {p.doc_id for p in store.predictions(run.run_id)}
    assert run.status == RUNNING and "gv-eng-swe-191_ENG" not in stored_docs
    # Whole shards only; resumed with a generator that works, only what is missing is sent.
    lines = []
    resumed = generate_run("pgv-pii-en", "random", options=options, store=tmp_path / "r.sqlite", log=lines.append,
                           cluster=ExecutorOptions("ray", shards=5))
    local = generate_run("pgv-pii-en", "random", options=options, store=tmp_path / "l.sqlite", progress=False)
    assert resumed.run_id == run.run_id == local.run_id and resumed.run.status == COMPLETE
    assert _rows(tmp_path / "r.sqlite", run.run_id) == _rows(tmp_path / "l.sqlite", run.run_id)
    assert 1 <= len(lines) <= 5 and lines[-1].startswith("shards 5/5")
    # A finished run is not sent again: nothing runs, nothing is printed.
    again = []
    generate_run("pgv-pii-en", "random", options=options, store=tmp_path / "r.sqlite", log=again.append,
                 cluster=ExecutorOptions("ray", shards=5))
    assert again == []


def test_the_cli_runs_a_sharded_generation(tmp_path):
    store = tmp_path / "s.sqlite"
    result = CliRunner().invoke(main, ["generate", "-c", "pgv-pii-en", "-g", "random", "--store", str(store),
                                       "--executor", "ray", "--shards", "2"])
    assert result.exit_code == 0, result.output
    assert "complete: 720 spans, 0 FAILED" in result.output and "shards 2/2 · run " in result.output


def test_a_cluster_off_this_machine_needs_an_explicit_yes(tmp_path):
    store = tmp_path / "s.sqlite"
    result = CliRunner().invoke(main, ["generate", "-c", "pgv-pii-en", "-g", "random", "--store", str(store),
                                       "--executor", "ray", "--address", "ray://10.1.2.3:10001"])
    assert result.exit_code != 0 and (result.exception is None or isinstance(result.exception, SystemExit))
    assert "10.1.2.3 is not this machine" in result.output and "--allow-remote" in result.output
    assert not store.exists()  # nothing written, not even the store file


def test_auto_does_not_follow_ray_address_off_this_machine(tmp_path, monkeypatch):
    # Ray reads $RAY_ADDRESS before the cluster `ray start` runs here.
    monkeypatch.setenv("RAY_ADDRESS", "10.9.8.7:6379")
    store = tmp_path / "s.sqlite"
    result = CliRunner().invoke(main, ["generate", "-c", "pgv-pii-en", "-g", "random", "--store", str(store),
                                       "--executor", "ray", "--address", "auto"])
    assert result.exit_code != 0 and "$RAY_ADDRESS ray://10.9.8.7:6379: 10.9.8.7 is not this machine" in result.output
    assert not store.exists()
