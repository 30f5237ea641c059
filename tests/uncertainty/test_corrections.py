"""Holm and Benjamini–Hochberg against adjusted p-values worked by hand; the dagger's rule (issue 40)."""

from __future__ import annotations

import math

import pytest

from workbench.infra.errors import InvalidValue
from workbench.uncertainty import adjust, benjamini_hochberg, holm, not_different_from_best

# The textbook-sized example: four p-values, m = 4. Sorted: 0.005 (4th), 0.01 (1st), 0.03 (3rd), 0.04 (2nd).
P = [0.01, 0.04, 0.03, 0.005]


def test_holm_by_hand():
    # × (m − i + 1): 4 × 0.005 = 0.02, 3 × 0.01 = 0.03, 2 × 0.03 = 0.06, 1 × 0.04 = 0.04;
    # running maximum: 0.02, 0.03, 0.06, 0.06; back in the given order:
    assert holm(P).tolist() == pytest.approx([0.03, 0.06, 0.06, 0.02])


def test_benjamini_hochberg_by_hand():
    # × m / i: 4 × 0.005 = 0.02, 2 × 0.01 = 0.02, 4/3 × 0.03 = 0.04, 1 × 0.04 = 0.04;
    # running minimum from the largest down: 0.02, 0.02, 0.04, 0.04; in the given order:
    assert benjamini_hochberg(P).tolist() == pytest.approx([0.02, 0.04, 0.04, 0.02])


def test_the_step_up_minimum_and_the_cap_at_one():
    # BH: 3 × 0.02 = 0.06 > 3/2 × 0.03 = 0.045, so the smallest takes the minimum above it; Holm caps at 1.
    assert benjamini_hochberg([0.02, 0.03, 0.9]).tolist() == pytest.approx([0.045, 0.045, 0.9])
    assert holm([0.6, 0.5]).tolist() == [1.0, 1.0]


def test_nan_is_no_test_and_is_not_counted():
    adjusted = holm([0.01, float("nan"), 0.04])
    assert math.isnan(adjusted[1])
    assert adjusted[[0, 2]].tolist() == pytest.approx([0.02, 0.04])  # m = 2


def test_no_correction_and_refusals():
    assert adjust(P, "none").tolist() == P
    with pytest.raises(InvalidValue, match="correction"):
        adjust(P, "bonferroni")
    with pytest.raises(InvalidValue, match=r"\[0, 1\]"):
        holm([0.2, 1.5])


def test_not_different_from_best_by_hand():
    # Runs b, c, d, e against the best a, with P's p-values: Holm gives 0.03, 0.06, 0.06, 0.02, so
    # c and d (≥ 0.05) carry the dagger; BH gives 0.02, 0.04, 0.04, 0.02: none at α = 0.05, c and d at 0.03.
    p = dict(zip("bcde", P))
    holm_marks = not_different_from_best(p, "a")
    assert holm_marks.not_different == ("c", "d") and holm_marks.best == "a"
    assert holm_marks.adjusted == pytest.approx({"b": 0.03, "c": 0.06, "d": 0.06, "e": 0.02})
    assert "Holm over 4 comparisons" in holm_marks.caption()
    assert not_different_from_best(p, "a", correction="bh").not_different == ()
    assert not_different_from_best(p, "a", correction="bh", alpha=0.03).not_different == ("c", "d")
    # Every raw p is below 0.05: without a correction no run would carry the dagger.
    assert not_different_from_best(p, "a", correction="none").not_different == ()


def test_a_run_without_a_test_is_marked_and_the_best_is_not_compared_with_itself():
    assert not_different_from_best({"b": float("nan"), "c": 0.001}, "a").not_different == ("b",)
    with pytest.raises(InvalidValue, match="not compared with itself"):
        not_different_from_best({"a": 0.5}, "a")
