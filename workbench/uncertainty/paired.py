"""Paired tests between two runs on the same corpus: paired bootstrap and approximate randomisation.

Both work on the units the metric averages over, paired between the runs: documents, or spans
clustered by document (whole documents are resampled or swapped, never single spans), with the
statistic a ratio of sums as in bootstrap.py. Both follow sacrebleu's `significance.py`
(sacrebleu 2.x, `_paired_bs_test`, `_paired_ar_test`, `_compute_p_value`, itself after multeval's
StratifiedApproximateRandomizationTest), two-sided on |A − B|, with p = (c + 1) / (R + 1), and with
one deliberate difference: c counts the draws *at least* as extreme as the observed difference
(≥), where sacrebleu and multeval count strictly greater ones (>). With > a run compared with
itself gets p = 1/(R + 1), "significant"; with ≥ it gets 1, and the randomisation test is the
Monte Carlo form of the exact permutation test (Noreen 1989; Phipson & Smyth 2010), which counts
the observed assignment among the permutations at least as extreme
(tests/uncertainty/test_paired.py checks it against all 2⁸ swaps of 8 units).

paired bootstrap (sacrebleu's paired_bs, Koehn 2004 with Riezler & Maxwell 2005's shift): draw R
resamples of the common units with replacement; on each compute the statistic for A and for B on
the same units; δ* = |A* − B*|; the null distribution is δ* − mean(δ*) (shifted to mean 0);
p = (#{δ* − mean(δ*) ≥ |A − B|} + 1) / (R + 1).
approximate randomisation (sacrebleu's paired_ar, Noreen 1989; Riezler & Maxwell 2005): on each of
R trials swap the two runs' values of each unit with probability 1/2 and compute T* = |X* − Y*|
for the two shuffled pseudo-runs; p = (#{T* ≥ |A − B|} + 1) / (R + 1).
The interval of A − B is the paired bootstrap's (percentile or BCa over the signed A* − B*), the
same draws for both tests given the same seed and resamples.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from workbench.infra.errors import InvalidValue
from workbench.uncertainty import resampling
from workbench.uncertainty.bootstrap import DOCUMENT, SPAN_BY_DOCUMENT
from workbench.uncertainty.defaults import AR_TRIALS, LEVEL, RESAMPLES, SEED
from workbench.uncertainty.pairing import Docs, Paired, pair

PAIRED_BOOTSTRAP = "paired bootstrap"
RANDOMISATION = "approximate randomisation"
# Draws within this fraction of the runs' scale of the observed difference count as ties with it:
# the same difference summed in another order differs in its last bits.
_TIE = 1e-9


@dataclass(frozen=True, slots=True)
class PairedResult:
    """Run A against run B on their common units: A − B with its interval and a two-sided p-value."""

    test: str  # PAIRED_BOOTSTRAP or RANDOMISATION
    a: float  # the statistic of run A on the common units
    b: float
    difference: float  # a − b
    low: float  # the interval of a − b (paired bootstrap)
    high: float
    p_value: float  # NaN where there is no test (fewer than two units)
    draws: int  # resamples (paired bootstrap) or trials (approximate randomisation) behind the p-value
    resamples: int  # resamples behind the interval
    seed: int
    level: float
    method: str  # the interval's method as used
    unit: str  # DOCUMENT or SPAN_BY_DOCUMENT
    statistic: str
    n_units: int  # common units (documents)
    n_values: int  # pairs of values behind them (spans, for a span-level metric)
    n_dropped: int  # pairs with a NaN on either side, left out
    n_unpaired: int  # units in one run only, left out (unpaired="drop")
    note: str = ""


def paired_bootstrap(a: Any, b: Any, *, docs: Docs = None, denominators: tuple[Any, Any] | None = None,
                     resamples: int = RESAMPLES, seed: int = SEED, level: float = LEVEL,
                     method: str = "percentile", unpaired: str = "refuse",
                     names: tuple[str, str] = ("A", "B")) -> PairedResult:
    """Paired bootstrap of run A against run B. `a`, `b`: unit id → value (dict or pandas Series);
    `docs` (mapping or function, unit id → document id) makes the units spans clustered by document;
    `denominators`: one mapping per run for a ratio of sums. See the module's docstring for the
    p-value; units in one run only are refused unless unpaired="drop"."""
    resampling.check_settings(resamples, level, method)
    paired = pair(a, b, docs=docs, denominators=denominators, unpaired=unpaired, names=names)
    low, high, used, note, diffs = _difference_interval(paired, resamples, seed, level, method)
    p = float("nan")
    observed = paired.a.point() - paired.b.point()
    if diffs is not None:
        deltas = np.abs(diffs[np.isfinite(diffs)])
        p = _p_value(deltas - deltas.mean(), observed, _scale(paired)) if len(deltas) else float("nan")
    return _result(PAIRED_BOOTSTRAP, paired, docs, denominators, low, high, p, resamples, resamples, seed,
                   level, used, note)


def approximate_randomisation(a: Any, b: Any, *, docs: Docs = None,
                              denominators: tuple[Any, Any] | None = None, trials: int = AR_TRIALS,
                              resamples: int = RESAMPLES, seed: int = SEED, level: float = LEVEL,
                              method: str = "percentile", unpaired: str = "refuse",
                              names: tuple[str, str] = ("A", "B")) -> PairedResult:
    """Approximate randomisation of run A against run B (arguments as `paired_bootstrap`): `trials`
    swaps drawn from `seed`; the interval of A − B is the paired bootstrap's with `resamples`."""
    resampling.check_settings(resamples, level, method)
    if not isinstance(trials, int | np.integer) or trials < 1:
        raise InvalidValue(f"trials must be a whole number ≥ 1, not {trials!r}")
    paired = pair(a, b, docs=docs, denominators=denominators, unpaired=unpaired, names=names)
    low, high, used, note, _ = _difference_interval(paired, resamples, seed, level, method)
    p = float("nan")
    if paired.a.n >= 2:
        rng = np.random.default_rng(seed)
        rows = max(1, resampling.CHUNK_CELLS // paired.a.n)
        shuffled = np.concatenate([
            swapped_differences(paired, rng.integers(0, 2, size=(min(rows, trials - start), paired.a.n),
                                                     dtype=bool))
            for start in range(0, trials, rows)])
        p = _p_value(shuffled[np.isfinite(shuffled)], paired.a.point() - paired.b.point(), _scale(paired))
    return _result(RANDOMISATION, paired, docs, denominators, low, high, p, trials, resamples, seed, level,
                   used, note)


def swapped_differences(paired: Paired, swaps: np.ndarray) -> np.ndarray:
    """|X − Y| for each row of `swaps` (True: that unit's values change sides between the runs)."""
    a, b = paired.a, paired.b
    moved = swaps.astype(np.float64)
    x_num = a.num.sum() + moved @ (b.num - a.num)
    x_den = a.den.sum() + moved @ (b.den - a.den)
    y_num = a.num.sum() + b.num.sum() - x_num
    y_den = a.den.sum() + b.den.sum() - x_den
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.abs(x_num / x_den - y_num / y_den)


def count_at_least(draws: np.ndarray, observed: float, scale: float) -> int:
    """How many draws are at least |observed| (ties within _TIE × scale counted)."""
    return int(np.count_nonzero(draws >= abs(observed) - _TIE * scale))


def _p_value(draws: np.ndarray, observed: float, scale: float) -> float:
    if not len(draws) or not np.isfinite(observed):  # a statistic undefined (denominators summing to 0)
        return float("nan")
    return (count_at_least(draws, observed, scale) + 1) / (len(draws) + 1)


def _scale(paired: Paired) -> float:
    return max(abs(paired.a.point()), abs(paired.b.point()))


def _difference_interval(paired: Paired, resamples: int, seed: int, level: float,
                         method: str) -> tuple[float, float, str, str, np.ndarray | None]:
    """The interval of A − B over paired resamples of the common units, and the signed differences."""
    observed = paired.a.point() - paired.b.point()
    if paired.a.n < 2:
        why = "no common units" if paired.a.n == 0 else "one common unit: no interval and no test"
        return observed, observed, method, why, None
    rng = np.random.default_rng(seed)
    diffs = np.concatenate([resampling.ratio_replicates(paired.a, rows) - resampling.ratio_replicates(paired.b, rows)
                            for rows in resampling.index_chunks(rng, paired.a.n, resamples)])
    jackknife = resampling.ratio_jackknife(paired.a) - resampling.ratio_jackknife(paired.b) \
        if method == "bca" else None
    low, high, used, note = resampling.interval_from_replicates(observed, diffs, jackknife, level, method)
    return low, high, used, note, diffs


def _result(test: str, paired: Paired, docs: Docs, denominators: Any, low: float, high: float, p: float,
            draws: int, resamples: int, seed: int, level: float, method: str, note: str) -> PairedResult:
    a, b = paired.a.point(), paired.b.point()
    return PairedResult(test, a, b, a - b, low, high, p, draws, resamples, seed, level, method,
                        DOCUMENT if docs is None else SPAN_BY_DOCUMENT,
                        "mean" if denominators is None else "ratio of sums",
                        paired.a.n, paired.n_values, paired.n_dropped, paired.n_unpaired, note)
