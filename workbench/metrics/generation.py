"""How the generation went: FAILED rate and time per span (003 §4, §5.2)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.metrics.base import LOWER, MetricInfo, per_run

FAMILY = "generation"
METRICS = (
    MetricInfo("failed_rate", "FAILED", FAMILY, 0, 1, LOWER, "003 §4, Table 6",
               "share of spans with no usable pseudonym ([FAILED])"),
    MetricInfo("seconds_per_span", "s/span", FAMILY, 0, None, LOWER, "003 Ethical Considerations",
               "mean generation wall time per span, in seconds (undefined for imported runs)"),
)


def span_values(frame: pd.DataFrame, context=None) -> pd.DataFrame:
    """Per row (index: the frame's): FAILED (1.0/0.0) and the span's seconds."""
    # Only a generated run was timed by the workbench: an imported or reference run's seconds
    # are unknown (or meaningless), not zero.
    seconds = frame["seconds"].astype(float).where(frame["source"] == "generated", np.nan)
    return pd.DataFrame({"failed_rate": frame["failed"].astype(float), "seconds_per_span": seconds})


def compute(frame: pd.DataFrame, context=None) -> pd.DataFrame:
    values = span_values(frame)
    return pd.DataFrame({name: per_run(frame, values[name]) for name in values.columns})
