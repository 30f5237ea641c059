"""Paired tests between two runs: paired bootstrap and approximate randomisation, worked by hand
and against the exact permutation test, for a document-level and a span-level metric (issue 40)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from workbench.infra.errors import WorkbenchError
from workbench.uncertainty import (
    DOCUMENT,
    SPAN_BY_DOCUMENT,
    approximate_randomisation,
    compare_with_best,
    paired_bootstrap,
)
from workbench.uncertainty import paired as paired_module
from workbench.uncertainty.pairing import pair


def run_values(seed: int, n: int, shift: float = 0.0) -> dict[str, float]:
    values = np.random.default_rng(seed).random(n)
    return {f"doc{i}": float(v + shift) for i, v in enumerate(values)}


# --- identical runs, and a run better on every unit -----------------------------------------------

@pytest.mark.parametrize("test", [paired_bootstrap, approximate_randomisation])
def test_a_run_against_itself_differs_by_nothing_with_p_one(test):
    a = run_values(1, 40)
    result = test(a, dict(a))
    assert result.difference == 0 and result.low == 0 and result.high == 0
    # Every draw is as extreme as the observed 0 (ties counted): p = (R + 1) / (R + 1).
    assert result.p_value == 1.0
    assert (result.n_units, result.unit, result.n_unpaired, result.n_dropped) == (40, DOCUMENT, 0, 0)


@pytest.mark.parametrize("test", [paired_bootstrap, approximate_randomisation])
def test_a_run_better_on_every_unit_gets_the_smallest_p(test):
    a = run_values(2, 30)
    gains = np.random.default_rng(3).uniform(0.05, 0.2, 30)
    b = {k: v - g for (k, v), g in zip(a.items(), gains)}
    result = test(a, b)
    assert result.difference == pytest.approx(gains.mean())
    assert result.low > 0.05 and result.high < 0.2 and result.low < result.difference < result.high
    # No draw reaches the observed difference: (0 + 1) / (R + 1), the least either test can give.
    assert result.p_value == 1 / (result.draws + 1)


# --- the exact permutation test: every swap of 8 documents -----------------------------------------

A8 = [0.61, 0.40, 0.72, 0.55, 0.30, 0.66, 0.48, 0.59]
B8 = [0.52, 0.43, 0.60, 0.57, 0.21, 0.60, 0.50, 0.47]


def exact_permutation_p(a: list[list[float]], b: list[list[float]]) -> tuple[int, int]:
    """(swaps at least as extreme, all 2^n swaps) for the mean over every value, unit i holding
    the values a[i] (run A) and b[i]; written out with lists, independent of the module's algebra."""
    def mean(groups):
        flat = [v for g in groups for v in g]
        return sum(flat) / len(flat)
    observed = abs(mean(a) - mean(b))
    extreme = 0
    for swaps in itertools.product([False, True], repeat=len(a)):
        x = [bi if s else ai for ai, bi, s in zip(a, b, swaps)]
        y = [ai if s else bi for ai, bi, s in zip(a, b, swaps)]
        extreme += abs(mean(x) - mean(y)) >= observed - 1e-12
    return extreme, 2 ** len(a)


def test_the_swapped_differences_over_all_swaps_are_the_exact_test():
    a = {f"d{i}": v for i, v in enumerate(A8)}
    b = {f"d{i}": v for i, v in enumerate(B8)}
    extreme, total = exact_permutation_p([[v] for v in A8], [[v] for v in B8])
    paired = pair(a, b)
    all_swaps = np.array(list(itertools.product([False, True], repeat=8)))
    draws = paired_module.swapped_differences(paired, all_swaps)
    observed = paired.a.point() - paired.b.point()
    assert paired_module.count_at_least(draws, observed, 1.0) == extreme
    assert 0.05 < extreme / total < 0.5  # a case between clear and hopeless, so the count is no corner


def test_approximate_randomisation_estimates_the_exact_p_document_level():
    a = {f"d{i}": v for i, v in enumerate(A8)}
    b = {f"d{i}": v for i, v in enumerate(B8)}
    extreme, total = exact_permutation_p([[v] for v in A8], [[v] for v in B8])
    result = approximate_randomisation(a, b, trials=20_000)
    # Monte Carlo error at 20,000 trials: about 0.0035 at these p; 0.015 is four of them.
    assert result.p_value == pytest.approx(extreme / total, abs=0.015)


# A span-level metric over 6 documents holding 1 to 4 spans: whole documents swap.
SPAN_A = [[0.9, 0.8], [0.4], [0.7, 0.6, 0.9, 0.8], [0.3, 0.5], [0.6], [0.2, 0.4, 0.3]]
SPAN_B = [[0.7, 0.8], [0.5], [0.6, 0.7, 0.8, 0.7], [0.4, 0.3], [0.7], [0.3, 0.2, 0.4]]


def span_runs() -> tuple[dict, dict]:
    a = {(d, s): v for d, spans in enumerate(SPAN_A) for s, v in enumerate(spans)}
    b = {(d, s): v for d, spans in enumerate(SPAN_B) for s, v in enumerate(spans)}
    return a, b


def test_approximate_randomisation_swaps_whole_documents_span_level():
    a, b = span_runs()
    extreme, total = exact_permutation_p(SPAN_A, SPAN_B)
    paired = pair(a, b, docs=lambda key: key[0])
    assert (paired.a.n, paired.n_values) == (6, 13)
    draws = paired_module.swapped_differences(paired, np.array(list(itertools.product([False, True], repeat=6))))
    assert paired_module.count_at_least(draws, paired.a.point() - paired.b.point(), 1.0) == extreme
    result = approximate_randomisation(a, b, docs=lambda key: key[0], trials=20_000)
    assert result.unit == SPAN_BY_DOCUMENT and (result.n_units, result.n_values) == (6, 13)
    assert result.p_value == pytest.approx(extreme / total, abs=0.015)
    # Swapping single spans would be another (wrong) test: its exact p differs here (0.67 against 0.56).
    single, single_total = exact_permutation_p([[v] for g in SPAN_A for v in g], [[v] for g in SPAN_B for v in g])
    assert abs(single / single_total - extreme / total) > 0.03


# --- the paired bootstrap by hand -----------------------------------------------------------------

def paired_bootstrap_by_hand(a: list[list[float]], b: list[list[float]], resamples: int, seed: int):
    """sacrebleu's paired bootstrap written out over the documented draws (rows of document
    indices from PCG64, int32): per resample the means over the drawn documents' values,
    δ = |A* − B*|, p = (#{δ − mean δ ≥ |A − B|} + 1) / (R + 1); the interval is over A* − B*."""
    n = len(a)
    rows = np.random.default_rng(seed).integers(0, n, size=(resamples, n), dtype=np.int32).tolist()

    def mean(groups, row):
        flat = [v for i in row for v in groups[i]]
        return sum(flat) / len(flat)
    observed = abs(mean(a, range(n)) - mean(b, range(n)))
    signed = [mean(a, row) - mean(b, row) for row in rows]
    deltas = [abs(d) for d in signed]
    centre = sum(deltas) / len(deltas)
    extreme = sum(d - centre >= observed - 1e-12 for d in deltas)
    return (extreme + 1) / (resamples + 1), signed


@pytest.mark.parametrize("span_level", [False, True])
def test_paired_bootstrap_by_hand(span_level):
    if span_level:
        groups_a, groups_b = SPAN_A, SPAN_B
        a, b = span_runs()
        docs = {key: key[0] for key in a}
    else:
        groups_a, groups_b = [[v] for v in A8], [[v] for v in B8]
        a, b = {i: v for i, v in enumerate(A8)}, {i: v for i, v in enumerate(B8)}
        docs = None
    p, signed = paired_bootstrap_by_hand(groups_a, groups_b, 300, 17)
    result = paired_bootstrap(a, b, docs=docs, resamples=300, seed=17, level=0.9)
    assert result.p_value == pytest.approx(p)
    assert 0.005 < p < 0.9  # not a corner: the count itself is compared
    assert (result.low, result.high) == pytest.approx((float(np.quantile(signed, 0.05)),
                                                       float(np.quantile(signed, 0.95))))
    assert result.draws == result.resamples == 300 and result.seed == 17


def test_both_tests_share_the_interval_of_the_difference():
    a, b = run_values(4, 50), run_values(5, 50)
    bootstrap = paired_bootstrap(a, b, seed=3)
    randomisation = approximate_randomisation(a, b, seed=3)
    assert (bootstrap.low, bootstrap.high) == (randomisation.low, randomisation.high)
    assert bootstrap.test != randomisation.test and randomisation.draws == 10_000


def test_the_difference_interval_with_bca():
    a, b = run_values(6, 80), run_values(7, 80, shift=-0.05)
    result = paired_bootstrap(a, b, method="bca")
    assert result.method == "bca" and result.low < result.difference < result.high


# --- units in one run only, NaN, too few units ------------------------------------------------------

def test_units_in_one_run_only_are_refused_by_default():
    a, b = run_values(8, 10), run_values(9, 10)
    del b["doc3"]
    b["doc99"] = 0.5
    with pytest.raises(WorkbenchError, match=r"1 unit\(s\) only in run base \(first: 'doc3'\); "
                                             r"1 unit\(s\) only in run new \(first: 'doc99'\)"):
        paired_bootstrap(a, b, names=("base", "new"))
    result = approximate_randomisation(a, b, unpaired="drop")
    assert (result.n_units, result.n_unpaired) == (9, 2)
    assert result.a == pytest.approx(np.mean([v for k, v in a.items() if k != "doc3"]))


def test_nan_pairs_are_dropped_and_counted():
    a, b = run_values(10, 12), run_values(11, 12)
    a["doc0"] = float("nan")
    b["doc5"] = float("nan")
    result = paired_bootstrap(a, b)
    assert (result.n_units, result.n_dropped) == (10, 2)


def test_one_common_unit_has_no_test():
    result = approximate_randomisation({"d": 0.4}, {"d": 0.6})
    assert np.isnan(result.p_value) and result.difference == pytest.approx(-0.2)
    assert "one common unit" in result.note


def test_series_and_denominators():
    pd = pytest.importorskip("pandas")
    a = pd.Series([3.0, 1.0, 2.0], index=["x", "y", "z"])
    b = pd.Series([1.0, 1.0, 2.0], index=["z", "y", "x"])  # another order: paired by id, not position
    tokens = ({"x": 4.0, "y": 6.0, "z": 5.0}, {"x": 4.0, "y": 6.0, "z": 5.0})
    result = paired_bootstrap(a, b, denominators=tokens, resamples=200)
    assert result.statistic == "ratio of sums"
    assert result.a == pytest.approx(6 / 15) and result.b == pytest.approx(4 / 15)


# --- the best run and the dagger ----------------------------------------------------------------------

def test_compare_with_best_marks_the_runs_not_different():
    base = run_values(12, 60)
    noise = np.random.default_rng(13).normal(0, 0.03, 60)
    noise -= noise.mean()
    runs = {
        "best": {k: v + 0.10 for k, v in base.items()},
        # 0.001 below the best on average, with 0.03 of noise per document: no evidence of a difference.
        "close": {k: v + 0.099 + e for (k, v), e in zip(base.items(), noise)},
        "worse": base,
    }
    marks, results = compare_with_best(runs, higher_is_better=True, draws=2000)
    assert marks.best == "best" and set(results) == {"close", "worse"}
    assert marks.not_different == ("close",)
    assert results["worse"].p_value == 1 / 2001 and marks.adjusted["worse"] == pytest.approx(2 / 2001)
    assert "Holm" in marks.caption()
    lower, _ = compare_with_best(runs, higher_is_better=False, draws=2000, test="bootstrap")
    assert lower.best == "worse" and lower.not_different == ()
