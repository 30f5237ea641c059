"""The disclosure rate as a pure function of per-span results, counted by hand."""

from __future__ import annotations

import pandas as pd
import pytest

from workbench.privacy.inference import disclosure_rates

# run, label, disclosed by a guess, replacement discloses, note ("" = a result)
SPANS = [
    ("r1", "PERSON", True, False, ""),
    ("r1", "PERSON", False, False, ""),
    ("r1", "LOC", False, True, ""),
    ("r1", "LOC", True, True, ""),
    ("r1", "LOC", False, False, "no valid JSON after 3 requests"),  # no answer: not counted
    ("r2", "PERSON", False, False, ""),
    ("r2", "LOC", False, False, ""),
]


def frame():
    return pd.DataFrame(SPANS, columns=["run_id", "label", "disclosed", "replacement_discloses", "note"]).assign(
        attack_key="mlm-x-n5-00000000")


def test_rates_per_run():
    rates = disclosure_rates(frame()).set_index("run_id")
    assert rates.loc["r1", "spans"] == 4
    assert rates.loc["r1", "disclosure"] == pytest.approx(3 / 4)  # by guess 2, by replacement 2, both 1
    assert rates.loc["r1", "disclosure_guesses"] == pytest.approx(2 / 4)
    assert rates.loc["r1", "disclosure_replacement"] == pytest.approx(2 / 4)
    assert rates.loc["r2", ["disclosure", "disclosure_guesses", "disclosure_replacement"]].tolist() == [0, 0, 0]


def test_rates_per_label():
    rates = disclosure_rates(frame(), by=["run_id", "label"]).set_index(["run_id", "label"])
    assert rates.loc[("r1", "PERSON"), "disclosure"] == pytest.approx(1 / 2)
    assert rates.loc[("r1", "LOC"), "spans"] == 2 and rates.loc[("r1", "LOC"), "disclosure"] == 1.0
    assert rates.loc[("r2", "LOC"), "disclosure"] == 0.0


def test_no_results_give_an_empty_frame_with_the_columns():
    empty = disclosure_rates(frame().iloc[4:5])
    assert empty.empty and {"spans", "disclosure"} <= set(empty.columns)
