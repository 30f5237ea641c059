"""PII overlap between a pseudonym and its original span (003 §4 Experiment 1, Table 3), and
what of the original a pseudonym keeps verbatim (issue 24).

The string rules live in workbench.text.overlap_rules (numerals excluded), shared with the leak
guard so that a guarded run scores 0 partial overlap by construction. FAILED spans never
overlap. Rates are over all spans of a run.

overlap_partial and overlap_absolute are 003's (a utility-side check in its Table 3; numerals
never count). Beside them:
overlap_partial_content  the same partial overlap on content words only: function words of
                         the span's language and titles ("of", "Mr") never count.
leak_verbatim            the privacy side: the original kept verbatim, numerals, codes and
                         dates included (overlap_rules.verbatim_leak). The `original` reference
                         run reads 1, `suppress` and `label` 0; shown in the privacy table.
"""

from __future__ import annotations

import pandas as pd

from workbench.metrics.base import LOWER, MetricInfo, per_run, remembered
from workbench.text.overlap_rules import absolute_overlap, content_partial_overlap, partial_overlap, verbatim_leak

FAMILY = "overlap"
METRICS = (
    MetricInfo("overlap_partial", "part.", FAMILY, 0, 1, LOWER, "003 Table 3",
               "share of spans whose pseudonym shares a non-numeral word with the original"),
    MetricInfo("overlap_absolute", "abs.", FAMILY, 0, 1, LOWER, "003 Table 3",
               "share of spans whose pseudonym equals the original (case and spacing ignored)"),
    MetricInfo("overlap_partial_content", "PII overlap part. content", FAMILY, 0, 1, LOWER, "beyond 003 (issue 24)",
               "share of spans whose pseudonym shares a content word with the original (no numerals, "
               "function words or titles)"),
    MetricInfo("leak_verbatim", "kept verbatim", FAMILY, 0, 1, LOWER, "beyond 003 (issue 24)",
               "share of spans whose pseudonym keeps the original verbatim (equal, containing it, or "
               "containing one of its codes; numerals included)"),
)


def span_values(frame: pd.DataFrame, context=None) -> pd.DataFrame:
    """Per row (index: the frame's): 1.0 where the pseudonym overlaps (leaks) its original, else 0.0.
    Once per context and frame (base.remembered): the report's intervals read them again, and the
    rules run per span in Python (TAB, 12 runs: 10 s)."""
    return remembered(context, FAMILY, frame, lambda: _span_values(frame))


def _span_values(frame: pd.DataFrame) -> pd.DataFrame:
    rows = list(zip(frame["pseudonym"].tolist(), frame["original"].tolist(), frame["failed"].tolist(),
                    frame["lang"].tolist()))

    def rate(rule) -> pd.Series:
        return pd.Series([not f and rule(p, o, lang) for p, o, f, lang in rows], index=frame.index, dtype=float)

    return pd.DataFrame({
        "overlap_partial": rate(lambda p, o, lang: partial_overlap(p, o)),
        "overlap_absolute": rate(lambda p, o, lang: absolute_overlap(p, o)),
        "overlap_partial_content": rate(content_partial_overlap),
        "leak_verbatim": rate(lambda p, o, lang: verbatim_leak(p, o)),
    })


def compute(frame: pd.DataFrame, context=None) -> pd.DataFrame:
    values = span_values(frame, context)
    return pd.DataFrame({name: per_run(frame, values[name]) for name in values.columns})
