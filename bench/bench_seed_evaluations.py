"""Time and peak memory of the seed papers' evaluations (issue 26) over the TAB test split, cold and
cached, beside the naive way.

    python bench/bench_seed_evaluations.py                   # TAB test: 3 reference runs + random
    python bench/bench_seed_evaluations.py --families ner,nmi --naive-sample 10 --json out/seed.json

The frame: the `original`, `suppress` and `label` reference runs and the random baseline (maskL)
over the TAB test split (127 documents, 7,320 spans each), made once into
.cache/bench/seed_evaluations.sqlite (found again when present).

Each pass runs in a fresh subprocess, so peak memory (ru_maxrss) is that of one family alone
and its models load inside the timing:
    cold    a new, empty cache folder: nothing tagged, embedded, fine-tuned or trained yet
    cached  the same folder again, as a second `workbench report` over runs already scored
    naive   the straightforward way, one document per model call and no cache, timed on a
            sample of documents and extrapolated to the frame's texts:
              ner  one spaCy call per document (the family: nlp.pipe batches + the entity cache)
              nmi  one embedder forward pass per document (the family: batched + vector cache)
The families: ner (000 NER-type consistency), perplexity (000), downstream (002 Δ-F1), nmi and
tpi (004/TAE), masking (001), detection (TAB recall and IC-weighted precision).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FAMILIES = ("ner", "perplexity", "downstream", "nmi", "tpi", "masking", "detection")
NAIVE = ("ner", "nmi")


def build_store(path: Path) -> list[str]:
    from workbench.exchange.reference import reference_run
    from workbench.loaders import shipped_corpus
    from workbench.pipeline import generate_run
    from workbench.store import RunStore
    from workbench.upos.factory import get_tagger

    store = RunStore(path)
    corpus = shipped_corpus("tab-test")
    tagger = get_tagger("spacy", quiet=True)
    ids = [reference_run(store, corpus, kind, tagger=tagger).run_id for kind in ("original", "suppress", "label")]
    ids.append(generate_run("tab-test", "random", options={"mode": "maskL"}, store=store, tagger="spacy",
                            quiet_tagger=True, progress=False).run_id)
    store.close()
    return ids


def _child_family(store_path: str, run_ids: list[str], family: str) -> dict:
    import resource

    from workbench.metrics import MetricConfig, MetricContext, compute_metrics, metric_frame
    from workbench.store import RunStore

    frame = metric_frame(RunStore(store_path, read_only=True), run_ids)
    started = time.perf_counter()
    context = MetricContext(MetricConfig())
    table = compute_metrics(frame, context, families=[family])
    seconds = time.perf_counter() - started
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {"family": family, "spans": int(len(frame)), "seconds": seconds,
            "cpu_seconds": usage.ru_utime + usage.ru_stime, "peak_rss_mb": usage.ru_maxrss / 1024,
            "metrics": json.loads(table.drop(columns=["signature"], errors="ignore").to_json(orient="index"))}


def _documents(store_path: str, run_ids: list[str]) -> list[tuple[str, str]]:
    """(lang, text) of every original and pseudonymised document the families read, once each."""
    from workbench.metrics.metric_frame import document_views, metric_frame
    from workbench.store import RunStore

    frame = metric_frame(RunStore(store_path, read_only=True), run_ids)
    texts = {}
    for view in document_views(frame):
        texts[(view.lang, view.text)] = None
        texts[(view.lang, view.pseudo_text)] = None
    return list(texts)


def _child_naive(store_path: str, run_ids: list[str], family: str, sample: int) -> dict:
    import resource

    documents = _documents(store_path, run_ids)
    chosen = random.Random(13).sample(documents, min(sample, len(documents)))
    if family == "ner":
        from workbench.metrics.backends.ner_models import DEFAULT_NER_MODEL, SpacyNer, resolve
        model = SpacyNer(resolve(DEFAULT_NER_MODEL, "en")[0], "en")
        call = lambda text: [(e.start_char, e.end_char, e.label_) for e in model.nlp(text).ents]  # noqa: E731
    else:
        from workbench.metrics.backends.embedders import make_embedder
        embedder = make_embedder("sentence-transformers/all-MiniLM-L6-v2")
        call = lambda text: embedder.embed([text])[0]  # noqa: E731
    call(chosen[0][1])  # the model's first call (lazy set-up) is not the per-document cost
    started = time.perf_counter()
    for _, text in chosen:
        call(text)
    seconds = time.perf_counter() - started
    per_document = seconds / len(chosen)
    return {"family": family, "sample_documents": len(chosen), "documents": len(documents),
            "seconds_per_document": per_document, "extrapolated_seconds": per_document * len(documents),
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def _spawn(kind: str, family: str, cache: Path, args: argparse.Namespace, run_ids: list[str]) -> dict:
    env = dict(os.environ, WORKBENCH_CACHE=str(cache))
    cmd = [sys.executable, __file__, "--child", kind, "--store", str(args.store), "--family", family,
           "--naive-sample", str(args.naive_sample), "--runs", *run_ids]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=REPO)
    if out.returncode != 0:
        sys.stderr.write(out.stderr)
        raise SystemExit(f"{kind} pass of {family} failed")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _stand_ins(cache: Path) -> None:
    """The set-up's stand-ins (Swedish NER tagger, causal LM, offline MLM) live in the cache folder:
    link them into the bench's empty one, so cold means nothing computed for these runs yet,
    not the set-up's models rebuilt."""
    from workbench.infra.paths import cache_dir
    for name in ("ner-tagger", "causal_lm", "mlm"):
        source = cache_dir() / name
        if source.exists():
            (cache / name).symlink_to(source, target_is_directory=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", type=Path, default=None, help="store with the runs (default: build them)")
    parser.add_argument("--runs", nargs="*", default=None, help="run ids (default: every run of the store)")
    parser.add_argument("--families", default=",".join(FAMILIES), help="comma-separated families to time")
    parser.add_argument("--naive-sample", type=int, default=20, help="documents timed the naive way")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    parser.add_argument("--family", help=argparse.SUPPRESS)
    parser.add_argument("--child", choices=["family", "naive"], help=argparse.SUPPRESS)
    args = parser.parse_args()

    sys.path.insert(0, str(REPO))
    if args.child:
        result = (_child_family(str(args.store), args.runs, args.family) if args.child == "family"
                  else _child_naive(str(args.store), args.runs, args.family, args.naive_sample))
        print(json.dumps(result))
        return

    if args.store is None:
        from workbench.infra.paths import cache_dir
        args.store = cache_dir() / "bench" / "seed_evaluations.sqlite"
        args.store.parent.mkdir(parents=True, exist_ok=True)
        run_ids = build_store(args.store)
    else:
        from workbench.store import RunStore
        run_ids = [r.run_id for r in RunStore(args.store, read_only=True).runs()]
    run_ids = args.runs or run_ids
    families = [f for f in args.families.split(",") if f]

    load_before = os.getloadavg()[0]
    results = {}
    with tempfile.TemporaryDirectory(prefix="bench-seed-") as tmp:
        for family in families:
            cache = Path(tmp) / family
            cache.mkdir()
            _stand_ins(cache)
            results[family] = {"cold": _spawn("family", family, cache, args, run_ids),
                               "cached": _spawn("family", family, cache, args, run_ids)}
            if family in NAIVE:
                results[family]["naive"] = _spawn("naive", family, Path(tmp) / f"{family}-naive", args, run_ids)
            r = results[family]
            print(f"{family:<11} cold {r['cold']['seconds']:8.1f} s ({r['cold']['peak_rss_mb']:6.0f} MB)  "
                  f"cached {r['cached']['seconds']:7.2f} s  "
                  f"cold/cached {r['cold']['seconds'] / r['cached']['seconds']:7.1f}x"
                  + (f"  naive {r['naive']['extrapolated_seconds']:8.1f} s extrapolated from "
                     f"{r['naive']['sample_documents']} of {r['naive']['documents']} documents "
                     f"(naive/cold {r['naive']['extrapolated_seconds'] / r['cold']['seconds']:.1f}x)"
                     if "naive" in r else ""), flush=True)
    spans = next(iter(results.values()))["cold"]["spans"] if results else 0
    print(f"frame: {spans} span rows, {len(run_ids)} runs; CPU cores: {os.cpu_count()}; load average "
          f"{load_before:.1f} before, {os.getloadavg()[0]:.1f} after (other processes slow wall times)")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"runs": run_ids, "results": results}, indent=1))


if __name__ == "__main__":
    main()
