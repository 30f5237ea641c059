"""Seconds of `workbench report` with its intervals against without, cold and warm (issue 40, item 6).

    .venv/bin/python bench/bench_report_intervals.py --store runs.sqlite                 # QUICK families
    .venv/bin/python bench/bench_report_intervals.py --store runs.sqlite --family nmi --family tpi
    .venv/bin/python bench/bench_report_intervals.py --store runs.sqlite --every-family  # hours cold on TAB
    .venv/bin/python bench/bench_report_intervals.py --store runs.sqlite --every-family --warm-from CACHE

The runs: every complete run of the store over --corpus (default tab-test), or --run ID ... .
The report: what `workbench report RUN... --out DIR` writes (every format: md, tex, csv, png), of
the families named (default: metrics.QUICK, the families that load no model, the benchmark's
first report; --every-family for all of them), with intervals (the default: bootstrap intervals,
best-run marks, the spread across seeds) and with --no-intervals (MetricConfig.intervals=False).

Cold: an empty metric cache (a fresh WORKBENCH_CACHE folder in which every entry of the real cache
but metrics/ is linked: the offline models and tag cache are not rebuilt, nothing the metrics
computed is there). Warm: the same call again on that cache (the median of --repeats calls).
--warm-from DIR: no cold calls; the warm ones over a copy of DIR (a WORKBENCH_CACHE whose metrics/
already holds these runs' results, e.g. the main job's), for every family without the hours. Each
report runs in a child process of its own (imports and model loads included, as a user's call);
the times are its wall seconds and its CPU seconds (the machine is shared: CPU seconds count this
work only), and the seconds of compute_metrics' uncertainty step (MetricContext.timings).
A Markdown table, the ratios with / without last.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def child(args: argparse.Namespace) -> None:
    """One report in this process; prints {"seconds", "timings"} as JSON on the last line."""
    from workbench.metrics import MetricConfig, MetricContext
    from workbench.reports import FORMATS, write_report
    from workbench.store import RunStore

    started = time.perf_counter()
    context = MetricContext(MetricConfig(intervals=args.intervals))
    write_report(RunStore(args.store), args.run, args.out, FORMATS, context=context, families=args.family or None)
    print(json.dumps({"seconds": time.perf_counter() - started, "timings": context.timings}))


def report_call(args: argparse.Namespace, runs: list[str], cache: Path, out: Path, intervals: bool) -> dict:
    """Wall, CPU and uncertainty-step seconds of one report in a child process over `cache`."""
    command = [sys.executable, __file__, "--child", "--store", args.store, "--out", str(out),
               "--intervals" if intervals else "--no-intervals",
               *(a for r in runs for a in ("--run", r)), *(a for f in args.family for a in ("--family", f))]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    done = subprocess.run(command, env={**os.environ, "WORKBENCH_CACHE": str(cache)}, capture_output=True, text=True)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"the report failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return {"wall": wall, "cpu": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
            "uncertainty": result["timings"].get("uncertainty", 0.0)}


def cold_cache(real: Path, into: Path, warm_from: Path | None = None) -> Path:
    """A WORKBENCH_CACHE with every entry of the real one linked except the metrics' cache, which
    is empty, or a copy of warm_from's (SQLite's backup, so a cache being written copies whole)."""
    into.mkdir(parents=True)
    # The models the warm results were computed with: warm_from's own, then the real cache's.
    for folder in (warm_from, real) if warm_from is not None else (real,):
        for entry in folder.iterdir():
            if entry.name != "metrics" and not (into / entry.name).exists():
                (into / entry.name).symlink_to(entry)
    if warm_from is not None:
        import sqlite3
        (into / "metrics").mkdir()
        for source in (warm_from / "metrics").iterdir():
            if source.suffix == ".sqlite":
                with sqlite3.connect(source) as old, sqlite3.connect(into / "metrics" / source.name) as new:
                    old.backup(new)
            elif source.is_dir():
                shutil.copytree(source, into / "metrics" / source.name)
    return into


def tab_runs(store: str, corpus: str) -> list[str]:
    from workbench.store import COMPLETE, RunStore
    return [r.run_id for r in RunStore(store).runs() if r.status == COMPLETE and r.corpus_name == corpus]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", required=True, help="the run store")
    parser.add_argument("--corpus", default="tab-test", help="report the complete runs over this corpus")
    parser.add_argument("--run", action="append", default=[], help="a run id (repeatable; instead of --corpus)")
    parser.add_argument("--family", action="append", default=[], help="a metric family (repeatable)")
    parser.add_argument("--every-family", action="store_true", help="every metric family (hours cold on TAB)")
    parser.add_argument("--repeats", type=int, default=3, help="warm calls per setting (the median is shown)")
    parser.add_argument("--warm-from", type=Path, help="no cold calls: warm ones over a copy of this WORKBENCH_CACHE")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--intervals", action=argparse.BooleanOptionalAction, default=True, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    from workbench.infra.paths import cache_dir
    from workbench.metrics import FAMILIES, QUICK
    if not args.family:
        args.family = list(FAMILIES if args.every_family else QUICK)
    runs = args.run or tab_runs(args.store, args.corpus)
    if not runs:
        sys.exit(f"no complete run over {args.corpus} in {args.store}")
    print(f"{len(runs)} runs of {args.store}; families: {', '.join(args.family)}; {args.repeats} warm calls each; "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)
    rows = {}
    with tempfile.TemporaryDirectory(prefix="bench-report-intervals-") as scratch:
        for intervals in (False, True):
            name = "with" if intervals else "without"
            cache = cold_cache(cache_dir(), Path(scratch) / f"cache-{name}", args.warm_from)
            out = Path(scratch) / f"report-{name}"
            cold = None if args.warm_from else report_call(args, runs, cache, out, intervals)
            if cold:
                print(f"{name} intervals, cold: {cold['wall']:.1f} s", file=sys.stderr, flush=True)
            warm = [report_call(args, runs, cache, out, intervals) for _ in range(args.repeats)]
            rows[name] = (cold, {k: statistics.median(w[k] for w in warm) for k in warm[0]})
            print(f"{name} intervals, warm: {rows[name][1]['wall']:.1f} s", file=sys.stderr, flush=True)
            shutil.rmtree(cache)
    print()
    print("| report | cold wall s | cold CPU s | warm wall s | warm CPU s | of which intervals (warm) s |")
    print("|---|---|---|---|---|---|")
    cell = lambda call, key: "–" if call is None else f"{call[key]:.1f}"  # noqa: E731
    for name, (cold, warm) in rows.items():
        print(f"| {name} intervals | {cell(cold, 'wall')} | {cell(cold, 'cpu')} | {warm['wall']:.1f} | "
              f"{warm['cpu']:.1f} | {warm['uncertainty']:.1f} |")
    (cold_a, warm_a), (cold_b, warm_b) = rows["with"], rows["without"]
    ratio = lambda a, b, key: "–" if a is None else f"{a[key] / b[key]:.2f}×"  # noqa: E731
    print(f"| with / without | {ratio(cold_a, cold_b, 'wall')} | {ratio(cold_a, cold_b, 'cpu')} "
          f"| {ratio(warm_a, warm_b, 'wall')} | {ratio(warm_a, warm_b, 'cpu')} | |")


if __name__ == "__main__":
    main()
