"""Adjusted p-values for many comparisons, and the runs not significantly different from the best.

A report compares every run with the best run of each metric: k − 1 paired tests per metric,
so some would come out "significant" by chance at 5 % each. Holm (1979) controls the chance of
any false "different" (family-wise error) and is never less powerful than Bonferroni;
Benjamini–Hochberg (1995) controls the expected share of false "different" among those called
different (false discovery rate) and is the less strict of the two. Holm is the default.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from workbench.infra.errors import InvalidValue
from workbench.uncertainty.defaults import ALPHA

CORRECTIONS = ("holm", "bh", "none")
CORRECTION_NAMES = {"holm": "Holm", "bh": "Benjamini–Hochberg", "none": "no correction"}


def holm(p_values: Sequence[float] | np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values, in the given order: sorted ascending, the i-th (from 1)
    is multiplied by m − i + 1, made non-decreasing (running maximum) and capped at 1. NaN (no
    test) stays NaN and does not count in m."""
    p, finite = _checked(p_values)
    out = np.full(len(p), np.nan)
    order = np.argsort(p[finite], kind="stable")
    ranked = p[finite][order]
    m = len(ranked)
    adjusted = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * ranked)) if m else ranked
    placed = np.empty(m)
    placed[order] = adjusted
    out[finite] = placed
    return out


def benjamini_hochberg(p_values: Sequence[float] | np.ndarray) -> np.ndarray:
    """Benjamini–Hochberg's step-up adjusted p-values, in the given order: sorted ascending, the
    i-th (from 1) is multiplied by m / i, made non-decreasing from the top (running minimum taken
    from the largest down) and capped at 1. NaN stays NaN and does not count in m."""
    p, finite = _checked(p_values)
    out = np.full(len(p), np.nan)
    order = np.argsort(p[finite], kind="stable")
    ranked = p[finite][order]
    m = len(ranked)
    scaled = ranked * m / np.arange(1, m + 1)
    adjusted = np.minimum(1.0, np.minimum.accumulate(scaled[::-1])[::-1]) if m else ranked
    placed = np.empty(m)
    placed[order] = adjusted
    out[finite] = placed
    return out


def adjust(p_values: Sequence[float] | np.ndarray, correction: str = "holm") -> np.ndarray:
    if correction not in CORRECTIONS:
        raise InvalidValue(f"correction must be one of {', '.join(CORRECTIONS)}, not {correction!r}")
    if correction == "holm":
        return holm(p_values)
    if correction == "bh":
        return benjamini_hochberg(p_values)
    p, _ = _checked(p_values)
    return p


@dataclass(frozen=True, slots=True)
class BestMarks:
    """For one metric: the best run and the runs not significantly different from it (the dagger)."""

    best: Hashable
    adjusted: dict[Hashable, float]  # each other run's adjusted p-value against the best
    not_different: tuple[Hashable, ...]  # the other runs with adjusted p ≥ alpha or no test, in the given order
    correction: str  # as CORRECTION_NAMES says it
    alpha: float

    def caption(self) -> str:
        """The sentence a table's caption carries."""
        return (f"† not significantly different from the best at α = {self.alpha:g} "
                f"({self.correction} over {len(self.adjusted)} comparisons)")


def not_different_from_best(p_against_best: Mapping[Hashable, float], best: Hashable, *,
                            alpha: float = ALPHA, correction: str = "holm") -> BestMarks:
    """Which runs are not significantly different from `best`, given each other run's paired p-value
    against it; the p-values are adjusted together for the k − 1 comparisons. A run without a test
    (p NaN: fewer than two common units) has no evidence of a difference, so it is marked too."""
    if not 0 < alpha < 1:
        raise InvalidValue(f"alpha must lie strictly between 0 and 1, not {alpha!r}")
    if best in p_against_best:
        raise InvalidValue(f"the best run {best!r} is not compared with itself: leave it out of the p-values")
    names = list(p_against_best)
    adjusted = adjust([p_against_best[n] for n in names], correction)
    marked = tuple(n for n, q in zip(names, adjusted.tolist()) if not q < alpha)
    return BestMarks(best, dict(zip(names, adjusted.tolist())), marked, CORRECTION_NAMES[correction], alpha)


def _checked(p_values: Sequence[float] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    p = np.asarray(p_values, dtype=np.float64).reshape(-1)
    finite = ~np.isnan(p)
    if ((p[finite] < 0) | (p[finite] > 1)).any():
        raise InvalidValue(f"p-values must lie in [0, 1]: {p[finite][(p[finite] < 0) | (p[finite] > 1)][:3].tolist()}")
    return p, finite
