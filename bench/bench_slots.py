"""Seconds and peak memory of slot building and of a whole run, for many spans (issue 10 #19).

    .venv/bin/python bench/bench_slots.py            # 20,000 and 200,000 spans (a few minutes)
    .venv/bin/python bench/bench_slots.py --sizes 2000 20000

Two corpus shapes, each with N one-character spans:
  one-document  one document of N short sentences, one span in each ("Go x now. Go y now. …")
  tiny-documents  N documents of one such sentence each

For each: the slot building of every span (sentence split, merge, every slot's window)
with the previous algorithm ("naive": each slot scanned every span of its document and
sentence merging scanned every sentence for each span) and the current one, and a whole
maskL run of the `random` baseline with the spaCy tagger into a fresh store ("run": tag
the originals, build slots, generate, select, store). Every measurement runs in its own
child process, so peak memory (ru_maxrss) is that measurement's alone; the tag cache is a
fresh temporary folder, so tagging is measured too.

The naive slot building is quadratic: it is measured up to --naive-max spans (default
20,000: about a minute) and estimated beyond it from the largest measured size as
(N / measured)² × its seconds, marked "est.".
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SHAPES = ("one-document", "tiny-documents")


def corpus_of(shape: str, n: int):
    from workbench.data_model import Corpus, Document, Span

    def sentence(i: int) -> str:
        return f"Go {'xyz'[i % 3]} now."

    if shape == "one-document":
        text = " ".join(sentence(i) for i in range(n))
        spans = tuple(Span(10 * i + 3, 10 * i + 4, text[10 * i + 3], "X", f"e{i}") for i in range(n))
        return Corpus(shape, "bench", (Document("d", text, "en", spans),))
    return Corpus(shape, "bench", tuple(
        Document(f"d{i}", sentence(i), "en", (Span(3, 4, sentence(i)[3], "X", f"e{i}"),)) for i in range(n)))


def naive_slots(doc, window: int = 2) -> int:
    """The previous slot building, kept here only to be measured: O(spans²) per document."""
    from workbench.text.sentences import split_sentences
    from workbench.text.slots import Gap, Slot

    offsets = [(s.start, s.end) for s in doc.spans]
    merged = list(split_sentences(doc.text, doc.lang))
    for start, end in offsets:
        first = next((i for i, (a, b) in enumerate(merged) if b > start), None)
        if first is None:
            continue
        last = first
        while last + 1 < len(merged) and merged[last][1] < end:
            last += 1
        if last > first:
            merged[first:last + 1] = [(merged[first][0], merged[last][1])]
    sentence_of, i = [], 0
    for start, _ in offsets:
        while i + 1 < len(merged) and merged[i][1] <= start:
            i += 1
        sentence_of.append(i)
    pieces_total = 0
    for target in doc.masked_spans:
        s = sentence_of[target]
        lo, hi = merged[max(0, s - window)][0], merged[min(len(merged) - 1, s + window)][1]
        pieces, cursor = [], lo
        for i, span in enumerate(doc.spans):  # every span of the document, for every slot
            if span.end <= lo or span.start >= hi or not span.mask:
                continue
            if span.start > cursor:
                pieces.append(doc.text[cursor:span.start])
            pieces.append(Gap(i, span.label, None, None, span.end - span.start))
            cursor = span.end
        if hi > cursor:
            pieces.append(doc.text[cursor:hi])
        pieces_total += len(Slot(doc.doc_id, doc.lang, target, doc.spans[target].label, None, tuple(pieces)).pieces)
    return pieces_total


def current_slots(doc, window: int = 2) -> int:
    from workbench.text.slots import SlotBuilder
    builder = SlotBuilder(doc, window=window)
    return sum(len(builder.slot(i).pieces) for i in doc.masked_spans)


def measure(kind: str, shape: str, n: int) -> dict:
    """One measurement, in this (child) process."""
    corpus = corpus_of(shape, n)
    started = time.perf_counter()
    if kind in ("naive", "now"):
        build = naive_slots if kind == "naive" else current_slots
        sum(build(d) for d in corpus.documents)
    else:
        from workbench.pipeline import generate_run
        from workbench.store import RunStore
        from workbench.upos import get_tagger
        with tempfile.TemporaryDirectory() as tmp:
            os.environ["WORKBENCH_CACHE"] = tmp
            store = RunStore(Path(tmp) / "runs.sqlite")
            started = time.perf_counter()
            generate_run(corpus, "random", options={"mode": "maskL"}, store=store,
                         tagger=get_tagger("spacy", quiet=True), progress=False)
            store.close()
    seconds = time.perf_counter() - started
    return {"seconds": seconds, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def in_child(kind: str, shape: str, n: int) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", kind, shape, str(n)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[20_000, 200_000])
    parser.add_argument("--naive-max", type=int, default=20_000)
    parser.add_argument("--no-run", action="store_true", help="slot building only, no whole runs")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind, shape, n = args.child
        print(json.dumps(measure(kind, shape, int(n))))
        return

    print(f"{'shape':15} {'spans':>8} {'naive s':>10} {'now s':>8} {'naive/now':>10} "
          f"{'naive MB':>9} {'now MB':>7} {'run s':>7} {'run MB':>7}")
    for shape in SHAPES:
        measured_naive: tuple[int, float] | None = None
        for n in args.sizes:
            now = in_child("now", shape, n)
            if n <= args.naive_max:
                naive = in_child("naive", shape, n)
                measured_naive = (n, naive["seconds"])
                naive_s, naive_mb = f"{naive['seconds']:.2f}", f"{naive['peak_mb']:.0f}"
                ratio = f"{naive['seconds'] / now['seconds']:.0f}x"
            elif measured_naive:
                m, s = measured_naive
                estimate = s * (n / m) ** 2 if shape == "one-document" else s * n / m
                naive_s, naive_mb, ratio = f"{estimate:.0f} est.", "-", f"{estimate / now['seconds']:.0f}x est."
            else:
                naive_s = naive_mb = ratio = "-"
            run = {"seconds": float("nan"), "peak_mb": float("nan")} if args.no_run else in_child("run", shape, n)
            print(f"{shape:15} {n:>8} {naive_s:>10} {now['seconds']:>8.2f} {ratio:>10} {naive_mb:>9} "
                  f"{now['peak_mb']:>7.0f} {run['seconds']:>7.1f} {run['peak_mb']:>7.0f}", flush=True)


if __name__ == "__main__":
    main()
