"""How the generation went: FAILED rate and time per span (003 §4, §5.2), and how often the
morphology filter fell back (issue 37)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.generation.pseudonym_choice import MORPH_FALLBACK
from workbench.metrics.base import LOWER, MetricInfo, per_run

FAMILY = "generation"
METRICS = (
    MetricInfo("failed_rate", "FAILED", FAMILY, 0, 1, LOWER, "003 §4, Table 6",
               "share of spans with no usable pseudonym ([FAILED])"),
    MetricInfo("seconds_per_span", "s/span", FAMILY, 0, None, LOWER, "003 Ethical Considerations",
               "mean generation wall time per span, in seconds (undefined for imported runs)"),
    MetricInfo("morph_fallback_rate", "morph fallback", FAMILY, 0, 1, LOWER, "beyond 003 (issue 37)",
               "share of spans where the morphology filter found no candidate with the original's features "
               "and took the UPOS filter's pick (undefined for runs without --morph-filter)"),
)


def span_values(frame: pd.DataFrame, context=None) -> pd.DataFrame:
    """Per row (index: the frame's): FAILED (1.0/0.0) and the span's seconds."""
    # Only a generated run was timed by the workbench: an imported or reference run's seconds
    # are unknown (or meaningless), not zero.
    seconds = frame["seconds"].astype(float).where(frame["source"] == "generated", np.nan)
    # A note names the fall-back (pseudonym_choice.MORPH_FALLBACK); a Swedish genitive the filter
    # reinflected did not fall back. Frames from before the column read as runs without the filter.
    morph = (frame["morph_filter"].fillna(False).astype(bool) if "morph_filter" in frame
             else pd.Series(False, index=frame.index))
    fell_back = frame["note"].fillna("").astype(str).str.contains(MORPH_FALLBACK, regex=False).astype(float)
    return pd.DataFrame({"failed_rate": frame["failed"].astype(float), "seconds_per_span": seconds,
                         "morph_fallback_rate": fell_back.where(morph, np.nan)})


def compute(frame: pd.DataFrame, context=None) -> pd.DataFrame:
    values = span_values(frame)
    return pd.DataFrame({name: per_run(frame, values[name]) for name in values.columns})
