"""A bootstrap interval for a metric, resampling the unit the metric averages over.

Document-level measures (TRIR, ROUGE, sentence similarity, TPS, NMI) resample documents;
span-level ones resample documents too and take all their spans (the cluster bootstrap), so a
long document with many spans counts as the one draw it is and does not narrow the interval
(tests/uncertainty/test_intervals.py shows the naive span bootstrap's is narrower on such data).
Percentile by default; BCa (Efron & Tibshirani 1993 ch. 14, as scipy.stats.bootstrap) as an
option, its acceleration from the jackknife over the same units. Draws: numpy's PCG64 from
`seed`, so the same call gives the same interval.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from workbench.uncertainty import resampling
from workbench.uncertainty.defaults import LEVEL, RESAMPLES, SEED

DOCUMENT = "document"
SPAN_BY_DOCUMENT = "span, clustered by document"


@dataclass(frozen=True, slots=True)
class Interval:
    """A statistic with its bootstrap interval and how it was drawn.

    `note` says why an interval is missing or odd (one unit, every resample equal, BCa
    undefined and the percentile interval given instead); "" for an ordinary interval."""

    point: float
    low: float
    high: float
    resamples: int
    seed: int
    method: str  # the method used: "percentile" or "bca"
    unit: str  # what was resampled: DOCUMENT or SPAN_BY_DOCUMENT
    level: float = LEVEL
    statistic: str = "mean"
    n_units: int = 0  # units resampled (documents)
    n_values: int = 0  # values behind them (spans, for a span-level metric)
    n_dropped: int = 0  # NaN values left out
    note: str = ""

    @property
    def has_interval(self) -> bool:
        """False where no interval could be drawn (no unit, or one): low and high are the point or NaN."""
        return self.n_units >= 2 and not np.isnan(self.low)

    def format(self, digits: int = 3) -> str:
        """'0.512 [0.480, 0.547]', or the point alone where there is no interval."""
        if not self.has_interval:
            return f"{self.point:.{digits}f}"
        return f"{self.point:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]"

    def to_json(self) -> str:
        """For a key-value cache (workbench.store.cache encode=); NaN as JSON's NaN token."""
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Interval:
        return cls(**json.loads(text))


def document_interval(values: Sequence[float] | np.ndarray, *,
                      denominators: Sequence[float] | np.ndarray | None = None,
                      resamples: int = RESAMPLES, seed: int = SEED, level: float = LEVEL,
                      method: str = "percentile") -> Interval:
    """Interval of a document-level metric: one value per document, the statistic their mean, or
    Σ values / Σ denominators with `denominators` (a share over tokens, say). TRIR is the mean of
    1 (re-identified) and 0 per document."""
    resampling.check_settings(resamples, level, method)
    sums = resampling.unit_sums(values, None, denominators)
    return _interval(sums, resamples, seed, level, method, DOCUMENT, _statistic_name(denominators))


def span_interval(values: Sequence[float] | np.ndarray, docs: Sequence[Hashable], *,
                  denominators: Sequence[float] | np.ndarray | None = None,
                  resamples: int = RESAMPLES, seed: int = SEED, level: float = LEVEL,
                  method: str = "percentile") -> Interval:
    """Interval of a span-level metric: one value per span with its document id; documents are
    resampled with replacement, each bringing all its spans, and the statistic is the mean over
    the resampled spans (or Σ values / Σ denominators). BCa's jackknife leaves out one document."""
    resampling.check_settings(resamples, level, method)
    sums = resampling.unit_sums(values, docs, denominators)
    return _interval(sums, resamples, seed, level, method, SPAN_BY_DOCUMENT, _statistic_name(denominators))


def aggregate_interval(statistic: Callable[[np.ndarray], np.ndarray], n_units: int, *, name: str,
                       unit: str = DOCUMENT, resamples: int = RESAMPLES, seed: int = SEED,
                       level: float = LEVEL, method: str = "percentile") -> Interval:
    """Interval of any statistic of a set of units that is not a ratio of sums (NMI of a clustering
    of the resampled documents, say). `statistic` takes a (k, m) matrix of unit indices, one
    resample per row, and returns its k values; `per_row` makes one from a function of one index
    vector. The point is `statistic` on every unit once; BCa's jackknife calls it on the n
    leave-one-out rows."""
    resampling.check_settings(resamples, level, method)
    if n_units < 1:
        return _no_interval(float("nan"), resamples, seed, level, method, unit, name, 0, "no units")
    point = float(statistic(np.arange(n_units)[None, :])[0])
    if n_units == 1:
        return _no_interval(point, resamples, seed, level, method, unit, name, 1, "one unit: no interval")
    rng = np.random.default_rng(seed)
    replicates = np.concatenate([np.asarray(statistic(rows), dtype=np.float64)
                                 for rows in resampling.index_chunks(rng, n_units, resamples)])
    jackknife = np.asarray(statistic(resampling.leave_one_out(n_units)), dtype=np.float64) \
        if method == "bca" else None
    low, high, used, note = resampling.interval_from_replicates(point, replicates, jackknife, level, method)
    return Interval(point, low, high, resamples, seed, used, unit, level, name, n_units, n_units, 0, note)


def per_row(function: Callable[[np.ndarray], float]) -> Callable[[np.ndarray], np.ndarray]:
    """A statistic of one resample's unit indices made into `aggregate_interval`'s vectorised form
    (a Python loop over the rows: for statistics such as NMI that cannot be vectorised anyway)."""
    def statistic(indices: np.ndarray) -> np.ndarray:
        return np.fromiter((function(row) for row in indices), dtype=np.float64, count=len(indices))
    return statistic


def _statistic_name(denominators: Any) -> str:
    return "mean" if denominators is None else "ratio of sums"


def _interval(sums: resampling.Sums, resamples: int, seed: int, level: float, method: str, unit: str,
              name: str) -> Interval:
    point = sums.point()
    if sums.n < 2:
        why = "no units" if sums.n == 0 else "one unit: no interval"
        return _no_interval(point, resamples, seed, level, method, unit, name, sums.n, why,
                            n_values=sums.n_values, n_dropped=sums.n_dropped)
    rng = np.random.default_rng(seed)
    replicates = np.concatenate([resampling.ratio_replicates(sums, rows)
                                 for rows in resampling.index_chunks(rng, sums.n, resamples)])
    jackknife = resampling.ratio_jackknife(sums) if method == "bca" else None
    low, high, used, note = resampling.interval_from_replicates(point, replicates, jackknife, level, method)
    return Interval(point, low, high, resamples, seed, used, unit, level, name, sums.n, sums.n_values,
                    sums.n_dropped, note)


def _no_interval(point: float, resamples: int, seed: int, level: float, method: str, unit: str, name: str,
                 n_units: int, why: str, *, n_values: int | None = None, n_dropped: int = 0) -> Interval:
    return Interval(point, point, point, resamples, seed, method, unit, level, name, n_units,
                    n_units if n_values is None else n_values, n_dropped, why)
