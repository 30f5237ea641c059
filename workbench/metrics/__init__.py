"""Metrics: pure functions of the tidy frame (workbench.metrics.metric_frame.metric_frame).

Each family module declares its metrics (MetricInfo: range, direction, source) next to
the code computing them, and a `compute(frame, context)` returning one row per run:

    diversity      003 Table 2 and Figure 1: form frequencies, unique forms, unique ratio, multi-word rate
    generation     FAILED rate, seconds per span
    upos           003 Table 3: UPOS accuracy in context (and by the pick's recorded UPOS)
    overlap        003 Table 3: partial / absolute overlap, numerals excluded
    similarity     003 Table 3: word and sentence cosine similarity
    rouge          003 Table 4: ROUGE-1/2/L/Lsum between summaries
    detectability  003 §5.1: cross-validated original-vs-pseudonymised classifier accuracy
    entities       consistency and merged-entity rate (beyond 003)
    tps            Text Preserved Similarity (004 §4.1)

A corpus mixing languages is reported per language (workbench.metrics.languages).

    frame = metric_frame(store, run_ids)
    table = compute_metrics(frame)               # offline defaults (MetricConfig())
"""

from __future__ import annotations

import importlib
import time
from typing import Sequence

import pandas as pd

from workbench.metrics.base import MetricInfo
from workbench.metrics.metric_context import MetricConfig, MetricContext
from workbench.metrics.metric_frame import (IDENTITY_COLUMNS, ORIGINAL, ORIGINAL_RUN_PREFIX, is_original,
                                            metric_frame, originals_frame, run_rows, runs_of, stored_runs,
                                            with_row_identity)

FAMILIES = ("diversity", "generation", "upos", "overlap", "similarity", "rouge", "detectability", "entities", "tps")
# A family is its module of this package, except where the module's name says more than the
# family's short name (which the CLI, reports and dashboard use).
FAMILY_MODULES = {"entities": "entity_coherence"}
# Families that describe the original spans too (the Original rows of 003 Table 2 / Figure 1).
ORIGINAL_FAMILIES = ("diversity", "entities")
RUN_COLUMNS = ["corpus", "corpus_hash", "lang", "generator", "model", "mode", "upos_filter", "consistent", "sees",
               "source", "signature",
               # the run's name and remaining options, for report names and option columns (issue 15)
               "name", "tagger", "window", "seed", "top_k", "leak_guard", "dtype", "config",
               *IDENTITY_COLUMNS]  # what the row is, read by name (workbench.metrics.metric_frame)

__all__ = ["FAMILIES", "ORIGINAL_RUN_PREFIX", "MetricConfig", "MetricContext", "MetricInfo", "compute_metrics",
           "family", "is_original", "metric_frame", "metric_infos", "originals_frame", "run_rows",
           "stored_runs"]


def family(name: str):
    if name not in FAMILIES:
        raise ValueError(f"unknown metric family {name!r} (known: {', '.join(FAMILIES)})")
    return importlib.import_module(f"workbench.metrics.{FAMILY_MODULES.get(name, name)}")


def metric_infos(families: Sequence[str] = FAMILIES) -> dict[str, MetricInfo]:
    return {m.name: m for f in families for m in family(f).METRICS}


def _run_info(frame: pd.DataFrame) -> pd.DataFrame:
    info = frame.groupby("run_id", sort=False).agg(
        **{c: (c, "first") for c in RUN_COLUMNS if c != "lang"},
        lang=("lang", lambda s: ",".join(sorted(set(s)))), spans=("span_index", "size"),
        documents=("doc_id", "nunique"))
    return info.reindex(runs_of(frame))


def compute_metrics(frame: pd.DataFrame, context: MetricContext | None = None, *,
                    families: Sequence[str] = FAMILIES, originals: bool = True,
                    per_language: bool = True) -> pd.DataFrame:
    """One row per run (and, with originals, one `original:<corpus>` row per corpus first); a run
    over a corpus in several languages gives one row per language (workbench.metrics.languages);
    per_language=False gives one row per run whatever its languages (only for metrics that use no
    language's model, or where every language has the same one, as in tests).

    Columns: the run's description (corpus, generator, mode …, spans, documents), then
    every metric of the chosen families; NaN where a metric does not apply.
    """
    context = context or MetricContext()
    if per_language:  # a mixed-language corpus: one row per (run, language), never a mean across them
        frame = context.split_by_language(frame)
    frame = with_row_identity(frame)
    if frame.empty:
        return pd.DataFrame(columns=RUN_COLUMNS + ["spans", "documents"] + list(metric_infos(families)))
    from workbench.progress import progress_bar
    wanted = [f for f in families if f in ORIGINAL_FAMILIES] if originals else []
    # One step per family (and per family of the originals' rows): the slow ones (similarity,
    # rouge, detectability, tps) take minutes on a large report, and a bar naming the family
    # says which one is running.
    bar = progress_bar(context.progress, len(families) + len(wanted), "metrics", unit="family")

    def step(name: str, rows: pd.DataFrame, label: str) -> pd.DataFrame:
        bar.set_description_str(f"metrics: {label}")
        started = time.perf_counter()
        part = family(name).compute(rows, context)
        context.timings[name] = context.timings.get(name, 0.0) + time.perf_counter() - started
        bar.update(1)
        return part

    try:
        table = pd.concat([_run_info(frame), *(step(f, frame, f) for f in families)], axis=1)
        if wanted:
            orig = originals_frame(frame)
            orig_table = pd.concat([_run_info(orig), *(step(f, orig, f"{f} (originals)") for f in wanted)], axis=1)
            table = pd.concat([orig_table, table])
    finally:
        bar.close()  # leave=False: the finished (or failed) bar is wiped, the terminal left clean
    table.index.name = "run_id"
    return table.reindex(columns=list(dict.fromkeys(
        [*RUN_COLUMNS, "spans", "documents", *metric_infos(families)])))
