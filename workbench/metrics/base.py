"""What every metric declares next to its code: name, range, direction, source.

A metric family is a module with `METRICS` (a tuple of MetricInfo) and
`compute(frame, context) -> DataFrame` (index: run_id, one column per metric name).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

HIGHER, LOWER, CHANCE, NEUTRAL = "higher", "lower", "closer to 0.5", "descriptive"


@dataclass(frozen=True, slots=True)
class MetricInfo:
    name: str  # column name in metric tables
    label: str  # short header for report tables
    family: str
    low: float | None  # range of values; None for an open end
    high: float | None
    better: str  # HIGHER | LOWER | CHANCE | NEUTRAL
    source: str  # where the definition comes from
    description: str

    @property
    def arrow(self) -> str:
        return {HIGHER: "↑", LOWER: "↓", CHANCE: "→0.5", NEUTRAL: ""}[self.better]

    @property
    def range_text(self) -> str:
        def bound(x, infinite: str) -> str:
            return infinite if x is None or math.isinf(x) else f"{x:g}"
        return f"[{bound(self.low, '-∞')}, {bound(self.high, '∞')}]"


def per_run(frame: pd.DataFrame, values: pd.Series, how: str = "mean") -> pd.Series:
    """Aggregate a per-row series by run, keeping the frame's run order."""
    runs = list(dict.fromkeys(frame["run_id"]))
    return values.groupby(frame["run_id"], sort=False).agg(how).reindex(runs)


def remembered(context, family: str, frame: pd.DataFrame, compute):
    """A family's per-span values (index: the frame's), computed once per metric context and frame.

    compute_metrics needs them for its per-run means and workbench.metrics.per_label for its
    per-label means: without this the per-label breakdown would tag and embed every span a
    second time. One frame per family is held (the latest), so memory stays bounded; the
    frame is compared by identity, so a new frame is never served old values."""
    if context is None:
        return compute()
    held = context.span_values.get(family)
    if held is not None and held[0] is frame:
        return held[1]
    values = compute()
    context.span_values[family] = (frame, values)
    return values


def empty_result(frame: pd.DataFrame, names) -> pd.DataFrame:
    runs = list(dict.fromkeys(frame["run_id"]))
    return pd.DataFrame(index=pd.Index(runs, name="run_id"), columns=list(names), dtype=float)


def one_line(exc: Exception) -> str:
    """Library errors span several lines; a CLI message reads better on one."""
    return " ".join(str(exc).split())
