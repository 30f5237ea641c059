"""PII overlap between a pseudonym and its original span (003 §4 Experiment 1, Table 3).

The string rules live in workbench.overlap_rules (numerals excluded), shared with the leak
guard so that a guarded run scores 0 partial overlap by construction. FAILED spans never
overlap. Rates are over all spans of a run.
"""

from __future__ import annotations

import pandas as pd

from workbench.metrics.base import LOWER, MetricInfo, per_run
from workbench.overlap_rules import absolute_overlap, partial_overlap

FAMILY = "overlap"
METRICS = (
    MetricInfo("overlap_partial", "part.", FAMILY, 0, 1, LOWER, "003 Table 3",
               "share of spans whose pseudonym shares a non-numeral word with the original"),
    MetricInfo("overlap_absolute", "abs.", FAMILY, 0, 1, LOWER, "003 Table 3",
               "share of spans whose pseudonym equals the original (case and spacing ignored)"),
)


def span_values(frame: pd.DataFrame, context=None) -> pd.DataFrame:
    """Per row (index: the frame's): 1.0 where the pseudonym overlaps its original, else 0.0."""
    rows = list(zip(frame["pseudonym"].tolist(), frame["original"].tolist(), frame["failed"].tolist()))
    partial = pd.Series([not f and partial_overlap(p, o) for p, o, f in rows], index=frame.index, dtype=float)
    absolute = pd.Series([not f and absolute_overlap(p, o) for p, o, f in rows], index=frame.index, dtype=float)
    return pd.DataFrame({"overlap_partial": partial, "overlap_absolute": absolute})


def compute(frame: pd.DataFrame, context=None) -> pd.DataFrame:
    values = span_values(frame)
    return pd.DataFrame({name: per_run(frame, values[name]) for name in values.columns})
