"""Interval preservation (workbench.metrics.date_intervals), golden values by hand."""

from __future__ import annotations

import math

import pandas as pd

from workbench.metrics import family
from workbench.metrics.date_intervals import calendar_day, document_pairs

ORIGINALS = ["3 August 2003", "10 August 2003", "2003-08-20", "2004", "Oslo"]


def test_one_shift_per_document_keeps_every_interval():
    # +5 days each: pairs among the three full dates: 3, all kept.
    assert document_pairs(ORIGINALS, ["8 August 2003", "15 August 2003", "2003-08-25", "2005", "Bergen"]) == (3, 3)


def test_a_shift_per_date_keeps_only_the_pairs_that_drew_the_same_offset():
    # +5, +5, -2 days: (1,2) kept; (1,3) and (2,3) not.
    assert document_pairs(ORIGINALS, ["8 August 2003", "15 August 2003", "2003-08-18", "2005", "Bergen"]) == (3, 1)


def test_a_pseudonym_that_is_no_date_keeps_none_of_its_pairs_and_the_sign_counts():
    assert document_pairs(ORIGINALS, ["house", "15 August 2003", "2003-08-25", "2005", "Bergen"]) == (3, 1)
    # The intervals reversed (10 -> 3, 3 -> 10): the same length, the wrong direction.
    assert document_pairs(ORIGINALS[:2], ["10 August 2003", "3 August 2003"]) == (1, 0)


def test_calendar_days_need_a_day_and_a_month():
    assert calendar_day("the 3 August 2003 hearing") == (pd.Timestamp("2003-08-03").date(), True)
    assert calendar_day("29 February")[1] is False  # read in a leap year
    assert calendar_day("31 February 2003") is None and calendar_day("August 2003") is None
    assert calendar_day("2004") is None


def test_the_family_computes_a_share_per_run_over_documents():
    rows = [("a", "d1", o, p) for o, p in zip(ORIGINALS, ["8 August 2003", "15 August 2003", "2003-08-18", "x", "y"])]
    rows += [("a", "d2", "1 May 2001", "9 May 2001"), ("a", "d2", "2 May 2001", "10 May 2001")]  # 1 of 1 kept
    rows += [("b", "d1", "2004", "2005")]  # no pair of full dates: no value
    frame = pd.DataFrame(rows, columns=["run_id", "doc_id", "original", "pseudonym"])
    values = family("date_intervals").compute(frame)["interval_kept"]
    assert values["a"] == 2 / 4 and math.isnan(values["b"])
    assert list(values.index) == ["a", "b"]
