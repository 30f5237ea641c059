"""A 95 % bootstrap interval for every metric that is a mean over units (issue 40).

`metric_intervals` gives the metric table's `<metric>_low` / `<metric>_high` columns: for each
run row and each metric with per-unit values (workbench.metrics.unit_values), a percentile
bootstrap over the unit it averages: documents for a document-level metric, spans resampled as
whole documents for a span-level one (workbench.uncertainty). 1,000 resamples from seed 13
(workbench.uncertainty.defaults): the same report twice gives the same intervals.

An interval is only given where its point equals the table's figure (to 1e-9): a metric whose
figure is no plain mean of the values (a macro F1 over types, say) gets none rather than an
interval around another number. Metrics without per-unit values (the form statistics, the
classifier's cross-validated accuracy, NMI, downstream F1, perplexity, which have their own
spread where they have one) have no interval columns; docs/metrics.md lists which have.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from workbench.metrics.unit_values import SPAN, UnitValues
from workbench.uncertainty import RESAMPLES, SEED, document_interval, span_interval

LOW, HIGH = "_low", "_high"
SAME_POINT = 1e-9  # the interval's point and the table's figure: the same mean, summed in another order


def interval_columns(metric: str) -> tuple[str, str]:
    return metric + LOW, metric + HIGH


def metric_intervals(table: pd.DataFrame, frame: pd.DataFrame, units: Mapping[str, UnitValues], *,
                     resamples: int = RESAMPLES, seed: int = SEED) -> pd.DataFrame:
    """Index: the table's run rows; columns: `<metric>_low`, `<metric>_high` for each metric of the
    table with per-unit values (`units`: workbench.metrics.unit_values of the same frame), in the
    table's column order. NaN where a run has fewer than two units, or where the interval's point
    is not the table's figure."""
    metrics = [m for m in table.columns if m in units]
    out = pd.DataFrame(index=table.index, columns=[c for m in metrics for c in interval_columns(m)], dtype=float)
    runs = [r for r in frame["run_id"].unique().tolist() if r in table.index]  # once: the column is long
    for metric in metrics:
        for run_id in runs:
            interval = run_interval(units[metric], run_id, resamples=resamples, seed=seed)
            figure = float(table.at[run_id, metric])
            if interval is None or math.isnan(figure) or not math.isclose(interval.point, figure, rel_tol=SAME_POINT,
                                                                           abs_tol=SAME_POINT):
                continue
            if interval.has_interval:
                out.at[run_id, metric + LOW], out.at[run_id, metric + HIGH] = interval.low, interval.high
    return out


def run_interval(values: UnitValues, run_id: str, *, resamples: int = RESAMPLES, seed: int = SEED):
    """The run's interval of one metric (workbench.uncertainty.Interval), None without units."""
    rows = values.of_run(run_id)
    if rows.empty:
        return None
    numbers = rows["value"].to_numpy(dtype=np.float64)
    if values.kind == SPAN:
        return span_interval(numbers, rows["doc_id"].tolist(), resamples=resamples, seed=seed)
    return document_interval(numbers, resamples=resamples, seed=seed)
