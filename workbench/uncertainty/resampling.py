"""The shared machinery: units as sums, resample indices in chunks, an interval from replicates.

Every statistic here except `aggregate_interval`'s is a ratio of sums over the resampled units:
a mean over documents is Σ value / Σ 1, a mean over spans clustered by document is
Σ (a document's span values) / Σ (its span count), TRIR is Σ re-identified / Σ 1, and a
metric that is itself a ratio (tokens, words) is Σ numerator / Σ denominator. So each unit
(a document) is reduced once to its two sums, and a resample is a gather of those two arrays:
10,000 resamples of 127 documents is a (10,000 × 127) index matrix, whatever the span count.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from workbench.infra.errors import InvalidValue

METHODS = ("percentile", "bca")
# Index cells drawn at once (32 MB of int64): rows per chunk depend only on the unit count, so
# a seed gives the same replicates however many resamples follow (the first 1,000 of 10,000
# are the 1,000).
CHUNK_CELLS = 1 << 22


@dataclass(frozen=True, slots=True)
class Sums:
    """Per unit (a document): the numerator's and the denominator's sum over its values."""

    num: np.ndarray
    den: np.ndarray
    ids: tuple[Hashable, ...]
    n_values: int  # values kept (spans, for a span-level metric)
    n_dropped: int  # NaN values left out
    unit_den: bool = False  # every denominator 1 (a plain mean over units): a resample's is its size

    @property
    def n(self) -> int:
        return len(self.num)

    def point(self) -> float:
        return ratio(float(self.num.sum()), float(self.den.sum()))


def ratio(num: float, den: float) -> float:
    return num / den if den != 0 else float("nan")


def check_settings(resamples: int, level: float, method: str) -> None:
    if not isinstance(resamples, int | np.integer) or resamples < 1:
        raise InvalidValue(f"resamples must be a whole number ≥ 1, not {resamples!r}")
    if not 0 < level < 1:
        raise InvalidValue(f"level must lie strictly between 0 and 1 (0.95 for 95 %), not {level!r}")
    if method not in METHODS:
        raise InvalidValue(f"method must be one of {', '.join(METHODS)}, not {method!r}")


def as_floats(values: Sequence[float] | np.ndarray, what: str) -> np.ndarray:
    array = np.asarray(values, dtype=np.float64)
    if array.ndim != 1:
        raise InvalidValue(f"{what} must be one value per unit (1-dimensional), not shape {array.shape}")
    return array


def unit_sums(values: Sequence[float] | np.ndarray, docs: Sequence[Hashable] | None,
              denominators: Sequence[float] | np.ndarray | None) -> Sums:
    """Values (with their denominators, 1 each if none) summed per document; each value its own
    unit when `docs` is None. A NaN value (or denominator) is dropped and counted; documents keep
    the order of their first value."""
    num = as_floats(values, "values")
    den = np.ones_like(num) if denominators is None else as_floats(denominators, "denominators")
    if len(den) != len(num):
        raise InvalidValue(f"{len(num)} values but {len(den)} denominators")
    if docs is not None and len(docs) != len(num):
        raise InvalidValue(f"{len(num)} values but {len(docs)} document ids")
    kept = ~(np.isnan(num) | np.isnan(den))
    n_dropped = int((~kept).sum())
    num, den = num[kept], den[kept]
    if docs is None:
        return Sums(num, den, tuple(range(len(num))), len(num), n_dropped, bool((den == 1).all()))
    kept_docs = [d for d, k in zip(docs, kept.tolist()) if k]
    order: dict[Hashable, int] = {}
    codes = np.fromiter((order.setdefault(d, len(order)) for d in kept_docs), dtype=np.intp, count=len(kept_docs))
    return Sums(np.bincount(codes, weights=num, minlength=len(order)),
                np.bincount(codes, weights=den, minlength=len(order)),
                tuple(order), len(num), n_dropped)


def index_chunks(rng: np.random.Generator, n: int, resamples: int) -> Iterator[np.ndarray]:
    """(rows, n) matrices of unit indices drawn with replacement, `resamples` rows in all."""
    rows = max(1, CHUNK_CELLS // max(n, 1))
    for start in range(0, resamples, rows):
        # int32: half the memory traffic of int64 in the gathers that follow.
        yield rng.integers(0, n, size=(min(rows, resamples - start), n), dtype=np.int32)


def ratio_replicates(sums: Sums, indices: np.ndarray) -> np.ndarray:
    """The statistic on each resample (a row of unit indices)."""
    num = sums.num[indices].sum(axis=1)
    if sums.unit_den:
        return num / indices.shape[1]
    with np.errstate(invalid="ignore", divide="ignore"):
        return num / sums.den[indices].sum(axis=1)


def ratio_jackknife(sums: Sums) -> np.ndarray:
    """The statistic with each unit left out in turn (BCa's acceleration)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return (sums.num.sum() - sums.num) / (sums.den.sum() - sums.den)


def leave_one_out(n: int) -> np.ndarray:
    """(n, n-1) indices: row i is every unit but i (for a statistic given as a function of indices)."""
    full = np.broadcast_to(np.arange(n), (n, n))
    return full[~np.eye(n, dtype=bool)].reshape(n, n - 1)


def quantiles(replicates: np.ndarray, probabilities: Sequence[float]) -> tuple[float, float]:
    """Quantiles by linear interpolation between order statistics (numpy's and scipy.stats.quantile's
    default, Hyndman & Fan type 7): with R sorted replicates the quantile q sits at position q (R - 1)."""
    low, high = np.quantile(replicates, probabilities)
    return float(low), float(high)


def bca_probabilities(point: float, replicates: np.ndarray, jackknife: np.ndarray,
                      level: float) -> tuple[float, float] | str:
    """BCa's two quantile levels (Efron & Tibshirani 1993 §14.3, eq. 14.14–14.15, the acceleration from
    the jackknife over units, eq. 14.15; as scipy.stats.bootstrap computes them: ties with the point
    count half in the bias correction), or why they are undefined."""
    below = (np.count_nonzero(replicates < point) + np.count_nonzero(replicates <= point)) / (2 * len(replicates))
    if not 0 < below < 1:
        return f"BCa undefined: every resample lies on one side of the point ({below:.0%} below)"
    jack = jackknife[np.isfinite(jackknife)]
    d = jack.mean() - jack
    spread = float((d ** 2).sum())
    # Every jackknife value equal: no skewness to correct for.
    acceleration = float((d ** 3).sum()) / (6 * spread ** 1.5) if spread > 0 else 0.0
    normal = NormalDist()
    z0 = normal.inv_cdf(below)
    alpha = (1 - level) / 2
    out = []
    for z in (normal.inv_cdf(alpha), normal.inv_cdf(1 - alpha)):
        shifted = z0 + z
        out.append(normal.cdf(z0 + shifted / (1 - acceleration * shifted)))
    return out[0], out[1]


def interval_from_replicates(point: float, replicates: np.ndarray, jackknife: np.ndarray | None,
                             level: float, method: str) -> tuple[float, float, str, str]:
    """(low, high, the method used, a note) from the statistic's bootstrap replicates. Resamples where
    the statistic is undefined (a denominator summing to 0) are left out and said so; every replicate
    equal gives a zero-width interval; BCa falls back to the percentile interval where undefined."""
    finite = replicates[np.isfinite(replicates)]
    notes = []
    if len(finite) < len(replicates):
        notes.append(f"{len(replicates) - len(finite)} resamples left out (statistic undefined)")
    if not len(finite):
        return float("nan"), float("nan"), method, "; ".join(notes + ["no resample defines the statistic"])
    if finite.min() == finite.max():
        notes.append("every resample gives the same value: zero width")
        return float(finite[0]), float(finite[0]), method, "; ".join(notes)
    alpha = (1 - level) / 2
    probabilities = (alpha, 1 - alpha)
    if method == "bca":
        if jackknife is None:
            raise InvalidValue("BCa needs the jackknife values")
        bca = bca_probabilities(point, finite, jackknife, level)
        if isinstance(bca, str):
            notes.append(bca + "; percentile interval instead")
            method = "percentile"
        else:
            probabilities = bca
    low, high = quantiles(finite, probabilities)
    return low, high, method, "; ".join(notes)
