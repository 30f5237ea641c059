"""Benchmark of the ollama generator through the Ollama stand-in (SmolLM2-135M-Instruct, llama.cpp):
seconds per span, requests per span and FAILED rate, for maskL and repL on PGV-PII EN and SV.

    python bench/bench_ollama.py                              # all 10 documents per language
    python bench/bench_ollama.py --docs 2 --upos both         # first 2 documents, UPOS off and on
    python bench/bench_ollama.py --url http://127.0.0.1:11434 --model qwen2.5:1.5b-instruct   # a real Ollama

Seconds per span: the seconds the generator attributed to the spans (its requests, retries
and waits), summed and divided by the spans; wall s/span adds the engine's tagging and
storing. Requests per span: chat requests sent, divided by spans. The runs are kept in
the store given (default: a temporary file), so they can be inspected with `workbench runs`.

Parallel requests (`-o parallel=N`, issue 14): repL requests/s at each level, on the same input,
with ratios to the first level and whether the stored output is identical to it:

    python bench/bench_ollama.py --parallel 1,2,4 --docs 4 --spans 6     # stand-in with 4 workers
    python -c "from bench_ollama import measure_parallel; print(measure_parallel((1, 2), docs=2, spans=2))"

(the second from bench/). See measure_parallel for what is measured and why the stand-in keeps
one number of workers for every level.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from workbench.data_model import Corpus
from workbench.llm.stats import run_failures
from workbench.loaders import shipped_corpus
from workbench.pipeline import generate_run
from workbench.store import RunStore
from workbench.upos import get_tagger

REPO = Path(__file__).resolve().parents[1]


def _launcher():
    spec = importlib.util.spec_from_file_location("ollama_standin_launch", REPO / "tests/ollama_standin/launch.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def measure_parallel(levels: Sequence[int] = (1, 2, 4), *, corpus: str = "pgv-pii-en", docs: int = 4,
                     spans: int = 6, workers: int | None = None, threads: int | None = None, url: str | None = None,
                     model: str | None = None, mode: str = "repL", settings: dict | None = None, seed: int = 13,
                     log=None) -> list[dict]:
    """Requests/s of the ollama generator at each `parallel` level, on the same input; one dict per level.

    Input: the first `docs` documents of `corpus` with only their first `spans` masked spans to
    replace (bench_mlm.bench_corpus). repL sends the k-th span of every document as one batch, so
    at most `docs` requests can be in flight: keep docs >= max(levels). Temperature 0 and a fixed
    seed (`settings` may override any generator option): each level's stored output is compared
    with the first level's (`identical`).

    Server: the stand-in, started once with `workers` (default max(levels)) models for every level,
    so the levels differ only in the client's parallel, as with one Ollama set to
    OLLAMA_NUM_PARALLEL = max(levels); `threads` is llama.cpp's per worker (default the server's,
    1 on 2 cores). Or a running server at `url` (then `model`; no peak is known).

    Clock: the wall time of generate_run, after the UPOS tags are computed once into a template
    store that each level's fresh store copies (parallel is not in the run id, so a shared store
    would resume the first level's run). One warm-up run (first span of each document, parallel =
    max(levels)) loads every worker's pages first.

    Each dict: parallel, workers, docs, spans (slots), requests (sent, retries included), failed,
    wall_s, requests_per_s, spans_per_s, ratio (requests_per_s / the first level's), peak_answering
    (most requests the stand-in's models answered at once), server_cpu_s and
    requests_per_server_cpu_s (the stand-in process's CPU time; these three None for another
    server), identical (stored output == the first level's), run_id.
    """
    from workbench.generation.engine import original_upos
    say = log or (lambda message: print(message, file=sys.stderr, flush=True))
    levels = [int(n) for n in levels]
    texts = _bench_corpus(corpus, docs, spans)
    warm = _bench_corpus(corpus, docs, 1)
    launch = _launcher()
    server = None
    if url is None:
        if launch.missing_requirements():
            raise SystemExit(f"the stand-in needs {launch.missing_requirements()}: run `bash .ci/setup tests`")
        server = launch.start(workers=workers or max(levels), threads=threads)
        url, model = server.url, model or launch.MODEL
    base = {"model": model or "qwen2.5:1.5b-instruct", "host": url, "temperature": 0.0, **(settings or {})}
    folder = Path(tempfile.mkdtemp(prefix="bench-parallel-"))
    tagger = get_tagger("spacy", quiet=True)
    template = folder / "tags.sqlite"
    with RunStore(template) as store:
        for c in (texts, warm):
            original_upos(store, c, tagger)
    rows: list[dict] = []
    first: list | None = None
    try:
        worker_count = server.stats()["workers"] if server else None
        generate_run(warm, "ollama", {**base, "parallel": max(levels)}, {"mode": mode, "seed": seed},
                     store=_copy(template, folder / "warm.sqlite"), tagger=tagger, progress=False)
        for level in levels:
            store = RunStore(_copy(template, folder / f"parallel-{level}.sqlite"))
            if server:
                server.reset_peak()
            cpu = _cpu_seconds(server)
            started = time.perf_counter()
            result = generate_run(texts, "ollama", {**base, "parallel": level}, {"mode": mode, "seed": seed},
                                  store=store, tagger=tagger, progress=False)
            wall = time.perf_counter() - started
            cpu = _cpu_seconds(server) - cpu if cpu is not None else None
            preds = store.predictions(result.run_id)
            output = [(p.doc_id, p.span_index, p.pseudonym, p.candidates, p.failed, p.note, p.requests) for p in preds]
            first = output if first is None else first
            requests = sum(p.requests for p in preds)
            rows.append({"parallel": level, "workers": worker_count, "docs": len(texts.documents), "spans": len(preds),
                         "requests": requests, "failed": sum(p.failed for p in preds), "wall_s": wall,
                         "requests_per_s": requests / wall, "spans_per_s": len(preds) / wall,
                         "ratio": 0.0, "peak_answering": server.peak() if server else None,
                         "server_cpu_s": cpu, "requests_per_server_cpu_s": requests / cpu if cpu else None,
                         "identical": output == first, "run_id": result.run_id})
            rows[-1]["ratio"] = rows[-1]["requests_per_s"] / rows[0]["requests_per_s"]
            store.close()
            say(_parallel_line(rows[-1]))
    finally:
        if server is not None:
            server.stop()
        shutil.rmtree(folder, ignore_errors=True)
    return rows


def _bench_corpus(name: str, docs: int, spans: int) -> Corpus:
    """bench_mlm's input: the first `docs` documents, only their first `spans` masked spans replaced."""
    here = str(Path(__file__).resolve().parent)
    if here not in sys.path:
        sys.path.insert(0, here)
    from bench_mlm import bench_corpus
    return bench_corpus(name, docs, spans)


def _cpu_seconds(server) -> float | None:
    """CPU seconds the stand-in process has used (Linux /proc), or None: requests per CPU-second
    tell a gain from using idle cores apart from a gain in work per request, and are steadier
    than wall time on a shared machine."""
    if server is None:
        return None
    import os
    try:
        fields = Path(f"/proc/{server.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def _copy(template: Path, path: Path) -> Path:
    shutil.copyfile(template, path)
    return path


def _parallel_line(r: dict) -> str:
    peak = "" if r["peak_answering"] is None else f", peak {r['peak_answering']} at once"
    return (f"parallel {r['parallel']}: {r['requests']} requests in {r['wall_s']:.1f} s = {r['requests_per_s']:.2f} "
            f"requests/s ({r['ratio']:.2f}x){peak}, identical output: {r['identical']}")


def parallel_table(rows: list[dict]) -> str:
    lines = ["| parallel | stand-in workers | documents | spans | requests | FAILED | wall s | requests/s | ratio | "
             "peak at once | server CPU s | requests / CPU s | output identical to the first level |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        cells = [r["parallel"], _cell(r["workers"]), r["docs"], r["spans"], r["requests"], r["failed"],
                 f"{r['wall_s']:.1f}", f"{r['requests_per_s']:.2f}", f"{r['ratio']:.2f}", _cell(r["peak_answering"]),
                 _cell(r["server_cpu_s"], "{:.1f}"), _cell(r["requests_per_server_cpu_s"], "{:.2f}"),
                 "yes" if r["identical"] else "NO"]
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    return "\n".join(lines)


def _cell(value, form: str = "{}") -> str:
    return "-" if value is None else form.format(value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpora", default="pgv-pii-en,pgv-pii-sv")
    parser.add_argument("--modes", default="maskL,repL")
    parser.add_argument("--upos", choices=["off", "on", "both"], default="off")
    parser.add_argument("--docs", type=int, default=0, help="first N documents of each corpus (0: all)")
    parser.add_argument("--url", default=None, help="use this server instead of starting the stand-in")
    parser.add_argument("--model", default=None, help="model name (default: the stand-in's)")
    parser.add_argument("--threads", type=int, default=None, help="llama.cpp threads of the stand-in (per worker)")
    parser.add_argument("--parallel", default=None, metavar="N,N,…",
                        help="measure repL requests/s at these parallel levels instead (measure_parallel)")
    parser.add_argument("--spans", type=int, default=6, help="with --parallel: masked spans per document")
    parser.add_argument("--workers", type=int, default=None,
                        help="with --parallel: the stand-in's workers (default: the highest level)")
    parser.add_argument("--store", default=None)
    parser.add_argument("--json", default=None, help="also write the rows as JSON here")
    parser.add_argument("-o", "--option", action="append", default=[], metavar="NAME=VALUE",
                        help="generator option, as for `workbench generate`")
    args = parser.parse_args()
    if args.parallel:
        from workbench.cli.generate import parse_generator_settings
        rows = measure_parallel([int(n) for n in args.parallel.split(",")], corpus=args.corpora.split(",")[0],
                                docs=args.docs or 4, spans=args.spans, workers=args.workers, threads=args.threads,
                                url=args.url, model=args.model, mode="repL" if "," in args.modes else args.modes,
                                settings=parse_generator_settings(None, tuple(args.option)))
        print(parallel_table(rows))
        if args.json:
            Path(args.json).write_text(json.dumps(rows, indent=2))
        return

    launch = _launcher()
    server = None
    if args.url is None:
        if launch.missing_requirements():
            sys.exit(f"the stand-in needs {launch.missing_requirements()}: run `bash .ci/setup tests`")
        server = launch.start(threads=args.threads)
        url, model = server.url, args.model or launch.MODEL
    else:
        url, model = args.url, args.model or "qwen2.5:1.5b-instruct"
    from workbench.cli.generate import parse_generator_settings
    settings = parse_generator_settings(None, tuple(args.option))
    settings.update(model=model, host=url)
    store_path = args.store or str(Path(tempfile.mkdtemp()) / "bench-ollama.sqlite")
    store = RunStore(store_path)
    tagger = get_tagger("spacy", quiet=True)
    upos_settings = {"off": [False], "on": [True], "both": [False, True]}[args.upos]
    rows = []
    print(f"server {url}, model {model}, store {store_path}", file=sys.stderr)
    try:
        for name in args.corpora.split(","):
            corpus = shipped_corpus(name)
            if args.docs:
                corpus = Corpus(f"{name}-first{args.docs}", corpus.source, corpus.documents[:args.docs])
            for mode in args.modes.split(","):
                for upos in upos_settings:
                    started = time.perf_counter()
                    record = generate_run(corpus, "ollama", settings, {"mode": mode, "upos_filter": upos},
                                          store=store, tagger=tagger, progress=False).run
                    wall = time.perf_counter() - started
                    f = run_failures(store, record.run_id)
                    rows.append({"corpus": corpus.name, "mode": mode, "upos": upos, "docs": len(corpus.documents),
                                 "spans": f.spans, "requests": f.requests, "requests_per_span": f.requests / f.spans,
                                 "seconds_per_span": f.seconds / f.spans, "wall_seconds_per_span": wall / f.spans,
                                 "failed_rate": f.failed_rate, "copied_rate": f.copied_rate, "reasons": f.reasons,
                                 "run_id": record.run_id})
                    print(_line(rows[-1]), file=sys.stderr, flush=True)
    finally:
        if server is not None:
            server.stop()
    print(_table(rows))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))


def _line(r: dict) -> str:
    return (f"{r['corpus']} {r['mode']} upos={'on' if r['upos'] else 'off'}: {r['spans']} spans, "
            f"{r['seconds_per_span']:.3f} s/span, {r['requests_per_span']:.3f} req/span, "
            f"FAILED {r['failed_rate']:.1%}")


def _table(rows: list[dict]) -> str:
    head = ("| corpus | mode | UPOS | spans | s/span | wall s/span | requests/span | FAILED | copied | "
            "FAILED reasons (spans) |\n|---|---|---|---:|---:|---:|---:|---:|---:|---|")
    lines = [head]
    for r in rows:
        reasons = ", ".join(f"{k} {v}" for k, v in sorted(r["reasons"].items(), key=lambda kv: -kv[1])) or "-"
        lines.append(f"| {r['corpus']} | {r['mode']} | {'on' if r['upos'] else 'off'} | {r['spans']} | "
                     f"{r['seconds_per_span']:.3f} | {r['wall_seconds_per_span']:.3f} | {r['requests_per_span']:.3f} | "
                     f"{r['failed_rate']:.1%} | {r['copied_rate']:.1%} | {reasons} |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
