"""Interval preservation: the share of pairs of dates in a document whose interval the pseudonyms keep.

What a per-date shift costs (issue 27). The surrogate's default moves every date of a document
by one offset, so the number of days between any two of its dates is kept (002 §3.2), and one
known date reveals every other (the known-pair attack, workbench.privacy.known_pair);
`-o date_shift=each` moves each date by its own offset and keeps almost none.

Pairs counted: two spans of one document whose originals are both full calendar dates (day,
month and year: "3 August 2003", "2003-08-10"; read by workbench.text.dates, words around the
date allowed), so the denominator is the corpus's, the same for every run. A pair is kept when
both pseudonyms read as full calendar dates and the days between them equal the days between
the originals, sign included. A pseudonym that is no date (a random word, a suppression)
keeps none of its pairs; a run with no pair of full dates has no value (NaN).
"""

from __future__ import annotations

from datetime import date

import pandas as pd

from workbench.metrics.base import HIGHER, MetricInfo
from workbench.text.dates import calendar_day

FAMILY = "date_intervals"
METRICS = (
    MetricInfo("interval_kept", "intervals kept", FAMILY, 0, 1, HIGHER, "beyond 003 (issue 27)",
               "share of pairs of full calendar dates in a document whose interval in days the pseudonyms keep"),
)


def _full_date(text: str) -> date | None:
    day = calendar_day(text)
    return day[0] if day is not None and day[1] else None


def document_pairs(originals: list[str], pseudonyms: list[str]) -> tuple[int, int]:
    """(pairs of full dates among the originals, pairs whose interval the pseudonyms keep)."""
    dates = [(o, _full_date(p)) for o, p in ((_full_date(o), p) for o, p in zip(originals, pseudonyms))
             if o is not None]
    pairs = kept = 0
    for i, (o1, p1) in enumerate(dates):
        for o2, p2 in dates[i + 1:]:
            pairs += 1
            kept += p1 is not None and p2 is not None and (p2 - p1) == (o2 - o1)
    return pairs, kept


def compute(frame: pd.DataFrame, context=None) -> pd.DataFrame:
    runs = list(dict.fromkeys(frame["run_id"]))
    values = {}
    for run_id, rows in frame.groupby("run_id", sort=False):
        pairs = kept = 0
        for _, doc in rows.groupby("doc_id", sort=False):
            # A FAILED span keeps nothing: "[FAILED]" reads as no date.
            n, k = document_pairs(doc["original"].tolist(), doc["pseudonym"].tolist())
            pairs, kept = pairs + n, kept + k
        values[run_id] = kept / pairs if pairs else float("nan")
    return pd.DataFrame({"interval_kept": pd.Series(values, dtype=float).reindex(runs)})
