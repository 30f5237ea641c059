"""Seconds of bootstrap intervals and paired tests at a report's size, against the naive way (issue 40).

    .venv/bin/python bench/bench_uncertainty.py                  # about a minute on 2 cores
    .venv/bin/python bench/bench_uncertainty.py --naive-resamples 10000   # the naive loops in full

The shape is the TAB test split's: 127 documents and their 7,320 gold spans (the real span count
of each document, read from the shipped corpus), with seeded synthetic values (the time does not
depend on them): a document-level metric (one value per document, the mean) and a span-level one
(one 0/1 value per span, the mean over spans, documents resampled with all their spans).

For each, 10,000 resamples (--resamples), percentile and BCa:
  vectorised   workbench.uncertainty (one index matrix per chunk, each document reduced to two sums)
  numpy loop   one numpy call per resample over the spans' array (the careful non-vectorised way)
  python loop  a Python loop per resample over the drawn documents and their spans, BCa's jackknife
               a loop too (the naive way)
Times are CPU seconds of this process (time.process_time: the machine is shared, and wall time
then counts other people's work); each vectorised time is the median of --repeats runs; the loops run once each over
--naive-resamples resamples and are scaled to --resamples linearly (marked "est." when scaled:
every resample costs the same). The ratio column is loop time / vectorised time, measured here in
the same run. Then the paired tests (paired bootstrap at 1,000 resamples, approximate
randomisation at 10,000 trials, each with its 1,000-resample interval) and a cache key.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from statistics import NormalDist

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from workbench.uncertainty import (  # noqa: E402  (after the path set-up, as a script)
    approximate_randomisation,
    document_interval,
    interval_key,
    paired_bootstrap,
    span_interval,
)


def tab_test_shape() -> list[int]:
    """Spans per document of the TAB test split (127 documents, 7,320 spans)."""
    from workbench.loaders import shipped_corpus

    return [len(d.spans) for d in shipped_corpus("tab-test").documents]


def timed(function: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.process_time()
        function()
        times.append(time.process_time() - start)
    return statistics.median(times)


# --- the naive ways, kept here only to be measured -------------------------------------------------

def python_loop(groups: list[list[float]], resamples: int, seed: int, bca: bool) -> tuple[float, float]:
    """Resample documents in a Python loop, gather their spans, take the mean; BCa with a jackknife loop."""
    draw = random.Random(seed)
    n = len(groups)
    flat = [v for g in groups for v in g]
    point = sum(flat) / len(flat)
    replicates = []
    for _ in range(resamples):
        picked = [v for _ in range(n) for v in groups[draw.randrange(n)]]
        replicates.append(sum(picked) / len(picked))
    replicates.sort()
    alpha = (0.025, 0.975)
    if bca:
        below = (sum(r < point for r in replicates) + sum(r <= point for r in replicates)) / (2 * resamples)
        jack = []
        for i in range(n):
            rest = [v for j, g in enumerate(groups) if j != i for v in g]
            jack.append(sum(rest) / len(rest))
        mean = sum(jack) / n
        d = [mean - j for j in jack]
        a = sum(x ** 3 for x in d) / (6 * sum(x ** 2 for x in d) ** 1.5)
        normal = NormalDist()
        z0 = normal.inv_cdf(below)
        alpha = tuple(normal.cdf(z0 + (z0 + z) / (1 - a * (z0 + z)))
                      for z in (normal.inv_cdf(0.025), normal.inv_cdf(0.975)))
    return tuple(_quantile(replicates, q) for q in alpha)  # type: ignore[return-value]


def numpy_loop(values: np.ndarray, docs: np.ndarray, n_docs: int, resamples: int, seed: int) -> tuple[float, float]:
    """One numpy call per resample over the spans (percentile only)."""
    rng = np.random.default_rng(seed)
    members = [np.flatnonzero(docs == d) for d in range(n_docs)]
    replicates = np.empty(resamples)
    for r in range(resamples):
        picked = np.concatenate([members[d] for d in rng.integers(0, n_docs, n_docs)])
        replicates[r] = values[picked].mean()
    low, high = np.quantile(replicates, [0.025, 0.975])
    return float(low), float(high)


def _quantile(ordered: list[float], q: float) -> float:
    position = q * (len(ordered) - 1)
    below = int(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (position - below) * (ordered[above] - ordered[below])


# --- the measurement --------------------------------------------------------------------------------

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--naive-resamples", type=int, default=1_000,
                        help="resamples the loops actually run (scaled to --resamples)")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    sizes = tab_test_shape()
    rng = np.random.default_rng(13)
    doc_values = rng.beta(2.0, 5.0, len(sizes))
    docs = np.repeat(np.arange(len(sizes)), sizes)
    rates = rng.beta(1.0, 4.0, len(sizes))  # a leak rate per document, so spans are correlated within one
    span_values = (rng.random(len(docs)) < rates[docs]).astype(np.float64)
    groups = {"document": [[float(v)] for v in doc_values],
              "span": [span_values[docs == d].tolist() for d in range(len(sizes))]}
    scale = args.resamples / args.naive_resamples
    mark = "" if scale == 1 else " est."
    print(f"{len(sizes)} documents, {len(docs)} spans (TAB test's shape); {args.resamples} resamples; "
          f"loops measured over {args.naive_resamples} and scaled ×{scale:g}; load average {os.getloadavg()[0]:.1f}")
    print()
    print("| metric | method | vectorised CPU ms | numpy loop CPU s | ratio | python loop CPU s | ratio | interval |")
    print("|---|---|---|---|---|---|---|---|")
    for kind in ("document", "span"):
        for method in ("percentile", "bca"):
            vectorised = (partial(document_interval, doc_values, resamples=args.resamples, method=method)
                          if kind == "document" else
                          partial(span_interval, span_values, docs, resamples=args.resamples, method=method))
            interval = vectorised()  # also warms up
            fast = timed(vectorised, args.repeats)
            numpy_cell = ratio_cell = ""
            if method == "percentile":
                values, members = (doc_values, np.arange(len(sizes))) if kind == "document" else (span_values, docs)
                start = time.process_time()
                numpy_loop(values, members, len(sizes), args.naive_resamples, 13)
                slow = (time.process_time() - start) * scale
                numpy_cell, ratio_cell = f"{slow:.2f}{mark}", f"{slow / fast:,.0f}×"
            start = time.process_time()
            naive = python_loop(groups[kind], args.naive_resamples, 13, method == "bca")
            python_s = (time.process_time() - start) * scale
            print(f"| {kind} | {method} | {fast * 1000:.1f} | {numpy_cell} | {ratio_cell} | {python_s:.2f}{mark} | "
                  f"{python_s / fast:,.0f}× | {interval.format(3)} (loop: [{naive[0]:.3f}, {naive[1]:.3f}]) |")

    print()
    print("| paired test | metric | CPU ms | p | A − B [95 %] |")
    print("|---|---|---|---|---|")
    other_docs = np.clip(doc_values + rng.normal(0.01, 0.05, len(sizes)), 0, 1)
    other_spans = np.where(rng.random(len(docs)) < 0.05, 1 - span_values, span_values)
    runs = {"document": (dict(enumerate(doc_values)), dict(enumerate(other_docs)), None),
            "span": (dict(enumerate(span_values)), dict(enumerate(other_spans)), dict(enumerate(docs.tolist())))}
    for kind, (a, b, span_docs) in runs.items():
        for name, test in (("paired bootstrap", paired_bootstrap), ("approximate randomisation",
                                                                    approximate_randomisation)):
            result = test(a, b, docs=span_docs)
            ms = timed(lambda test=test, a=a, b=b, span_docs=span_docs: test(a, b, docs=span_docs), args.repeats) * 1000
            print(f"| {name} ({result.draws}) | {kind} | {ms:.1f} | {result.p_value:.4f} | "
                  f"{result.difference:+.4f} [{result.low:+.4f}, {result.high:+.4f}] |")

    ids = [f"doc{d}/{i}" for i, d in enumerate(docs.tolist())]
    key_ms = timed(lambda: interval_key(span_values, ids, statistic="mean", resamples=1000, seed=13,
                                        method="percentile", level=0.95, docs=docs.tolist()), args.repeats) * 1000
    print()
    print(f"cache key of the span-level interval ({len(ids)} values, ids and documents): {key_ms:.1f} CPU ms")


if __name__ == "__main__":
    main()
