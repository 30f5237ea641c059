"""Metrics: pure functions of the tidy frame (workbench.metrics.metric_frame.metric_frame).

Each family module declares its metrics (MetricInfo: range, direction, source) next to
the code computing them, and a `compute(frame, context)` returning one row per run; the
families, by name with what each measures, are listed in workbench.metrics.families.

A corpus mixing languages is reported per language (workbench.metrics.languages).

    frame = metric_frame(store, run_ids)
    table = compute_metrics(frame)               # offline defaults (MetricConfig())
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence

import pandas as pd

from workbench.metrics.base import MetricInfo
from workbench.metrics.families import METRIC_FAMILIES, QUICK
from workbench.metrics.metric_context import MetricConfig, MetricContext
from workbench.metrics.metric_frame import (
    IDENTITY_COLUMNS,
    ORIGINAL_RUN_PREFIX,
    is_original,
    metric_frame,
    originals_frame,
    run_rows,
    runs_of,
    stored_runs,
    with_row_identity,
)

FAMILIES = METRIC_FAMILIES.names()  # in the metric table's column order (workbench.metrics.families)
RUN_COLUMNS = ["corpus", "corpus_hash", "lang", "generator", "model", "mode", "upos_filter", "consistent", "sees",
               "source", "signature",
               # the run's name and remaining options, for report names and option columns (issue 15)
               "name", "tagger", "window", "seed", "top_k", "leak_guard", "dtype", "config"]

__all__ = ["FAMILIES", "ORIGINAL_RUN_PREFIX", "QUICK", "MetricConfig", "MetricContext", "MetricInfo", "compute_metrics",
           "family", "is_original", "metric_frame", "metric_infos", "originals_frame", "run_rows",
           "stored_runs"]


def family(name: str):
    """The family's module (an unknown name is an InvalidValue, a ValueError, naming the nearest)."""
    return METRIC_FAMILIES.load(name)


def describes_originals(name: str) -> bool:
    """Whether the family is computed for the original spans too (the Original rows of 003 Table 2
    / Figure 1): its module says DESCRIBES_ORIGINALS, so no list is kept beside the registry."""
    return bool(getattr(family(name), "DESCRIBES_ORIGINALS", False))


def families_of(metric_names: Iterable[str]) -> tuple[str, ...]:
    """The families that compute these metrics, in the registry's order; names no family computes
    (the privacy measures, say) are left out. For a selection read from a table's columns."""
    wanted = set(metric_names)
    return tuple(f for f in FAMILIES if any(m.name in wanted for m in family(f).METRICS))


def metric_infos(families: Sequence[str] = FAMILIES) -> dict[str, MetricInfo]:
    return {m.name: m for f in families for m in family(f).METRICS}


def _run_info(frame: pd.DataFrame) -> pd.DataFrame:
    info = frame.groupby("run_id", sort=False).agg(
        **{c: (c, "first") for c in [*RUN_COLUMNS, *IDENTITY_COLUMNS] if c != "lang"},
        lang=("lang", lambda s: ",".join(sorted(set(s)))), spans=("span_index", "size"),
        documents=("doc_id", "nunique"))
    return info.reindex(runs_of(frame))


def compute_metrics(frame: pd.DataFrame, context: MetricContext | None = None, *,
                    families: Sequence[str] = FAMILIES, originals: bool = True,
                    per_language: bool = True, uncertainty: bool = False) -> pd.DataFrame:
    """One row per run (and, with originals, one `original:<corpus>` row per corpus first); a run
    over a corpus in several languages gives one row per language (workbench.metrics.languages);
    per_language=False gives one row per run whatever its languages (only for metrics that use no
    language's model, or where every language has the same one, as in tests).

    Columns: the run's description (corpus, generator, mode …, spans, documents), then
    every metric of the chosen families; NaN where a metric does not apply. With `uncertainty`,
    then each metric's 95 % bootstrap interval as `<metric>_low`, `<metric>_high` where it is a
    mean over units (workbench.metrics.intervals), and `<metric>_mark`, the best run of each corpus
    and those not significantly different from it (workbench.metrics.best_runs); last, so the
    earlier columns keep their places.
    """
    context = context or MetricContext()
    if per_language:  # a mixed-language corpus: one row per (run, language), never a mean across them
        frame = context.split_by_language(frame)
    frame = with_row_identity(frame)
    if frame.empty:
        return pd.DataFrame(columns=[*RUN_COLUMNS, "spans", "documents", *metric_infos(families), *IDENTITY_COLUMNS])
    from workbench.infra.progress import progress_bar
    wanted = [f for f in families if describes_originals(f)] if originals else []
    # One step per family (and per family of the originals' rows): the slow ones (similarity,
    # rouge, detectability, tps) take minutes on a large report, and a bar naming the family
    # says which one is running (a line per family in a log).
    bar = progress_bar(context.progress, len(families) + len(wanted), "metrics", unit="family", lines=True)

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
    table = table.reindex(columns=list(dict.fromkeys(
        [*RUN_COLUMNS, "spans", "documents", *metric_infos(families),
         *IDENTITY_COLUMNS])))  # what a row is, read by name; last, so metrics.csv's columns keep their places
    if uncertainty:
        from workbench.metrics.best_runs import best_marks
        from workbench.metrics.intervals import metric_intervals
        from workbench.metrics.unit_values import unit_values
        started = time.perf_counter()
        units = unit_values(frame, context, families)  # what the figures above were computed from
        table = table.join(metric_intervals(table, frame, units)).join(best_marks(table, frame, units, families))
        from workbench.metrics.seed_spread import seed_spread
        table = table.join(seed_spread(table, list(metric_infos(families))))  # runs that differ only in seed
        context.timings["uncertainty"] = time.perf_counter() - started
    return table
