"""Benchmark of the ollama generator through the Ollama stand-in (SmolLM2-135M-Instruct, llama.cpp):
seconds per span, requests per span and FAILED rate, for maskL and repL on PGV-PII EN and SV.

    python bench/bench_ollama.py                              # all 10 documents per language
    python bench/bench_ollama.py --docs 2 --upos both         # first 2 documents, UPOS off and on
    python bench/bench_ollama.py --url http://127.0.0.1:11434 --model qwen2.5:1.5b-instruct   # a real Ollama

Seconds per span: the seconds the generator attributed to the spans (its requests, retries
and waits), summed and divided by the spans; wall s/span adds the engine's tagging and
storing. Requests per span: chat requests sent, divided by spans. The runs are kept in
the store given (default: a temporary file), so they can be inspected with `workbench runs`.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import tempfile
import time
from pathlib import Path

from workbench.llm.stats import run_failures
from workbench.loaders import shipped_corpus
from workbench.model import Corpus
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpora", default="pgv-pii-en,pgv-pii-sv")
    parser.add_argument("--modes", default="maskL,repL")
    parser.add_argument("--upos", choices=["off", "on", "both"], default="off")
    parser.add_argument("--docs", type=int, default=0, help="first N documents of each corpus (0: all)")
    parser.add_argument("--url", default=None, help="use this server instead of starting the stand-in")
    parser.add_argument("--model", default=None, help="model name (default: the stand-in's)")
    parser.add_argument("--threads", type=int, default=None, help="llama.cpp threads of the stand-in")
    parser.add_argument("--store", default=None)
    parser.add_argument("--json", default=None, help="also write the rows as JSON here")
    parser.add_argument("-o", "--option", action="append", default=[], metavar="NAME=VALUE",
                        help="generator option, as for `workbench generate`")
    args = parser.parse_args()

    launch = _launcher()
    server = None
    if args.url is None:
        if launch.missing_requirements():
            sys.exit(f"the stand-in needs {launch.missing_requirements()}: run .ci/steps/20-llm-standin.sh")
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
