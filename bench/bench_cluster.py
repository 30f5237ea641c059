"""The Ray executor on this machine: its overhead per task against task size, and the speed-up
from one to two local workers on a CPU-bound grid (issue 28).

    python bench/bench_cluster.py --json out/bench_cluster.json     # a few minutes on 2 cores
    python bench/bench_cluster.py --quick                           # fewer documents, one repeat

(a) Overhead per task. One run, generated with the local executor and then through Ray with
    --shards 1, 2, 5, 10, each into a fresh copy of a store whose original UPOS tags are
    already cached (so both sides time generation only, not the driver's tagging). The Ray
    cluster has ONE CPU here, so the shards run one after another, and the local side runs
    with torch limited to one thread, as Ray limits each worker (OMP_NUM_THREADS = the
    task's num_cpus); then
        overhead per task = (Ray wall - local wall) / tasks
    is what a task costs beyond its work (arguments out, rows back, one transaction per shard,
    scheduling), reported against spans per task. Two generators: `random` (microseconds per
    span: the overhead alone) and `fill-mask --model offline` maskL (CPU-bound). Every
    measurement has its own seed, so its run id is new and the worker loads the model once
    per job as the local path does (a worker keeps a loaded generator by run id).
    Starting Ray (ray.init) and the first job on a fresh cluster (the worker imports torch
    and the workbench) are one-off costs, reported separately.

(b) Speed-up 1 -> 2 workers. A grid of --grid fill-mask offline runs (different seeds) on
    pgv-pii-sv, as a benchmark sends it (workbench.cluster.runner.generate_on_cluster: every
    run's shard at once), with the local executor (one process; torch's default threads, one
    per core, and again with one thread), then Ray with num_cpus=1 and num_cpus=2 (Ray
    restarted between). Ratios are the local executor's wall (default threads) over each
    wall, from the same invocation. Ray gives each task OMP_NUM_THREADS = its num_cpus (1),
    so a worker's torch uses one thread and two workers on two cores do not oversubscribe;
    the threads each side's torch reports are printed.

Wall clock on a shared machine: check `uptime` first; --repeats takes the median.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

RAY_INIT = dict(address="local", include_dashboard=False, _node_ip_address="127.0.0.1", log_to_driver=False,
                configure_logging=False)
SHARDS = (1, 2, 5, 10)
FAST = ("random", {}, {"mode": "maskL"})
MLM = ("fill-mask", {"model": "offline"}, {"mode": "maskL"})


def first_documents(name: str, docs: int | None):
    from workbench.data_model import Corpus
    from workbench.loaders import load_corpus
    corpus = load_corpus(name)
    if docs is None or docs >= len(corpus.documents):
        return corpus
    return Corpus(f"{name}-first{docs}", corpus.source, corpus.documents[:docs])


def spans_of(corpus) -> int:
    return sum(len(d.masked_spans) for d in corpus.documents)


class Stores:
    """Fresh stores, each a copy of a template whose original UPOS of the corpora is cached."""

    def __init__(self, root: Path, corpora) -> None:
        from workbench.generation.engine import original_upos
        from workbench.pipeline import make_tagger
        from workbench.store import RunStore
        self.root, self.count = root, 0
        self.template = root / "template.sqlite"
        store = RunStore(self.template)
        for corpus in corpora:
            original_upos(store, corpus, make_tagger("auto", corpus, quiet=True))
        store.close()

    def fresh(self) -> Path:
        self.count += 1
        path = self.root / f"store{self.count}.sqlite"
        shutil.copyfile(self.template, path)
        return path


def timed(fn) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def generate(stores: Stores, corpus, case, seed: int, cluster=None) -> float:
    """One run's wall into a fresh store; locally with torch on one thread, as a Ray worker has."""
    from workbench.pipeline import generate_run
    name, settings, options = case
    path = stores.fresh()
    with one_torch_thread(cluster is None):
        return timed(lambda: generate_run(corpus, name, settings, {**options, "seed": seed}, store=path,
                                          progress=False, quiet_tagger=True, cluster=cluster))


@contextmanager
def one_torch_thread(active: bool = True, threads: int = 1):
    import torch
    default = torch.get_num_threads()
    if active:
        torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(default)


def start_ray(cpus: int) -> float:
    import ray
    if ray.is_initialized():
        ray.shutdown()
    return timed(lambda: ray.init(num_cpus=cpus, resources={"ollama": cpus}, **RAY_INIT))


def overhead(stores: Stores, corpus, case, repeats: int, seeds) -> list[dict]:
    """Local wall and Ray wall per shard count (medians), and the overhead per task."""
    from workbench.cluster.shards import plan_shards
    from workbench.executors.options import ExecutorOptions
    spans = spans_of(corpus)
    local = statistics.median(generate(stores, corpus, case, next(seeds)) for _ in range(repeats))
    rows = []
    for shards in SHARDS:
        tasks = len(plan_shards(corpus, shards, "off"))  # never more than the documents
        options = ExecutorOptions("ray", shards=shards)
        wall = statistics.median(generate(stores, corpus, case, next(seeds), options) for _ in range(repeats))
        rows.append({"generator": case[0], "corpus": corpus.name, "spans": spans, "tasks": tasks,
                     "spans_per_task": round(spans / tasks, 1), "local_s": round(local, 2),
                     "ray_s": round(wall, 2), "overhead_per_task_s": round((wall - local) / tasks, 3)})
    return rows


def fit(rows: list[dict]) -> dict:
    """Ray wall - local wall = per_job + per_task * tasks, least squares over one generator's rows:
    the job's fixed cost (the cluster's first call, the driver's waits) apart from each task's."""
    xs = [r["tasks"] for r in rows]
    ys = [r["ray_s"] - r["local_s"] for r in rows]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    per_task = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return {"generator": rows[0]["generator"], "per_job_s": round(my - per_task * mx, 3),
            "per_task_s": round(per_task, 4)}


def grid(stores: Stores, corpus, runs: int, seed0: int, cluster, threads: int | None = None) -> float:
    """The grid's wall: `runs` fill-mask runs, their shards sent at once on Ray; locally with
    torch limited to `threads` intra-op threads (None: torch's default, one per core)."""
    from workbench.cluster.runner import generate_on_cluster
    from workbench.executors.contract import RunJob
    from workbench.generation.engine import run_generation
    from workbench.pipeline import make_generator, make_tagger
    from workbench.store import RunStore
    name, settings, options = MLM
    store = RunStore(stores.fresh())
    tagger = make_tagger("auto", corpus, quiet=True)
    gens = [make_generator(name, settings, {**options, "seed": seed0 + k}) for k in range(runs)]
    if cluster is None:
        with one_torch_thread(threads is not None, threads or 1):
            return timed(lambda: [run_generation(store, corpus, g, tagger, progress=False) for g in gens])
    return timed(lambda: generate_on_cluster(store, [RunJob(corpus, g, tagger) for g in gens], cluster))


def grid_row(executor: str, threads: int, wall: float, local: float, local1: float, spans: int) -> dict:
    """A row of (b): the ratios are the local executor's walls (default threads, one thread) over this one."""
    return {"executor": executor, "torch_threads": threads, "wall_s": round(wall, 2),
            "spans_per_s": round(spans / wall, 1), "local_over_this": round(local / wall, 2),
            "local1_over_this": round(local1 / wall, 2)}


def torch_threads() -> int:
    import torch
    return torch.get_num_threads()


def worker_threads() -> int:
    import ray
    return ray.get(ray.remote(num_cpus=1)(torch_threads).remote())


def print_table(rows: list[dict]) -> None:
    keys = list(rows[0])
    width = {k: max(len(k), *(len(str(r[k])) for r in rows)) for k in keys}
    print("  ".join(k.rjust(width[k]) for k in keys))
    for r in rows:
        print("  ".join(str(r[k]).rjust(width[k]) for k in keys))
    print()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer documents and runs, one repeat")
    ap.add_argument("--fast-corpus", default="pgv-pii-en")
    ap.add_argument("--mlm-docs", type=int, default=None,
                    help="documents of pgv-pii-en for fill-mask in (a) (default all 10)")
    ap.add_argument("--grid", type=int, default=None, help="fill-mask runs in the grid of (b) (default 4)")
    ap.add_argument("--grid-docs", type=int, default=None, help="documents of pgv-pii-sv in (b)")
    ap.add_argument("--repeats", type=int, default=None)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    mlm_docs = args.mlm_docs or (5 if args.quick else None)
    runs = args.grid or (2 if args.quick else 4)
    grid_docs = args.grid_docs or (2 if args.quick else 3)
    repeats = args.repeats or (1 if args.quick else 2)

    from workbench.executors.options import ExecutorOptions
    fast = first_documents(args.fast_corpus, None)
    mlm = first_documents("pgv-pii-en", mlm_docs)
    sv = first_documents("pgv-pii-sv", grid_docs)
    seeds = iter(range(1000, 10**6))
    result: dict = {"quick": args.quick, "repeats": repeats}
    with tempfile.TemporaryDirectory(prefix="bench_cluster_") as tmp:
        stores = Stores(Path(tmp), [fast, mlm, sv])
        # (a) on a one-CPU cluster. The first jobs pay the worker's imports and are kept apart.
        result["ray_init_s"] = round(start_ray(1), 2)
        result["first_job_s"] = round(generate(stores, mlm, MLM, next(seeds), ExecutorOptions("ray")), 2)
        generate(stores, fast, FAST, next(seeds), ExecutorOptions("ray"))  # random's first use, off the clock
        generate(stores, mlm, MLM, next(seeds))  # the driver's own imports and first load, off the clock
        rows = overhead(stores, fast, FAST, repeats, seeds) + overhead(stores, mlm, MLM, repeats, seeds)
        result["overhead"] = rows
        print(f"ray.init (1 CPU): {result['ray_init_s']} s; first job on the fresh cluster "
              f"(worker imports, model load, {spans_of(mlm)} fill-mask spans): {result['first_job_s']} s\n")
        print("(a) overhead per task, one-CPU Ray cluster against the local executor on one torch thread, "
              "medians of", repeats)
        print_table(rows)
        result["fit"] = [fit([r for r in rows if r["generator"] == case[0]]) for case in (FAST, MLM)]
        print("Ray wall - local wall = per job + per task x tasks (least squares)")
        print_table(result["fit"])

        # (b) the grid: local, then Ray with 1 and 2 CPUs.
        spans = spans_of(sv) * runs
        local = grid(stores, sv, runs, 100, None)
        local1 = grid(stores, sv, runs, 150, None, threads=1)
        walls, threads = {}, {"local": torch_threads()}
        for cpus in (1, 2):
            result[f"ray_init_{cpus}cpu_s"] = round(start_ray(cpus), 2)
            threads[f"ray{cpus}"] = worker_threads()
            grid(stores, sv, cpus, 900 + 10 * cpus, ExecutorOptions("ray"))  # every new worker's imports, off the clock
            walls[cpus] = grid(stores, sv, runs, 100 + 10 * cpus, ExecutorOptions("ray"))
        import ray
        ray.shutdown()
        speed = [grid_row("local", threads["local"], local, local, local1, spans),
                 grid_row("local", 1, local1, local, local1, spans)]
        speed += [grid_row(f"ray num_cpus={cpus}", threads[f"ray{cpus}"], walls[cpus], local, local1, spans)
                  for cpus in (1, 2)]
        result["grid"] = {"runs": runs, "corpus": sv.name, "spans": spans, "rows": speed,
                          "ray2_over_ray1": round(walls[1] / walls[2], 2)}
        print(f"(b) grid of {runs} fill-mask offline maskL runs on {sv.name} ({spans} spans in all)")
        print_table(speed)
        print(f"Ray 2 CPUs over Ray 1 CPU: {result['grid']['ray2_over_ray1']}x")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2), encoding="utf-8")
        print(f"written {args.json}")


if __name__ == "__main__":
    main()
