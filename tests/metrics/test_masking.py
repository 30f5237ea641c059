"""Words masked and information loss (paper 001 §6; workbench/metrics/masking.py), worked out by hand.

Two documents:
    d1  "Anna Berg lives in Oslo, Norway."   6 words; spans "Anna Berg" (2 words) and "Oslo" (1)
    d2  "Mr. O'Neil paid 1,500 kr."         7 words (Mr, O, Neil, paid, 1, 500, kr); span "O'Neil" (2)
A word counts as masked when it lies in a span whose placed text differs from the original; the
compressed sizes come from zlib level 9 (the family's compressor), the formula is checked here.
"""

from __future__ import annotations

import zlib

import pandas as pd
import pytest

from tests.metrics.conftest import add_run, make_context
from workbench.data_model import Corpus
from workbench.loaders.validate import RawSpan, build_document
from workbench.metrics import family, metric_frame

D1 = "Anna Berg lives in Oslo, Norway."
D2 = "Mr. O'Neil paid 1,500 kr."


def corpus() -> Corpus:
    return Corpus("masking", "test", (
        build_document("masking", "d1", D1, "en", [RawSpan(0, 9, "PERSON"), RawSpan(19, 23, "LOC")]),
        build_document("masking", "d2", D2, "en", [RawSpan(4, 10, "PERSON")]),
    ))


def C(text: str) -> int:
    return len(zlib.compress(text.encode("utf-8"), 9))


def scores(store, pseudonyms: dict[str, list]) -> pd.Series:
    frame = metric_frame(store, [add_run(store, corpus(), pseudonyms, name=str(pseudonyms))])
    result = family("masking").compute(frame, make_context())
    assert len(result) == 1
    return result.iloc[0]


def test_words_of_changed_spans_count_a_span_replaced_by_itself_does_not(store):
    # d1: "Anna Berg" changed (2 of 6 words), Oslo kept as itself (0); d2: O'Neil changed (2 of 7).
    row = scores(store, {"d1": ["Eva", "Oslo"], "d2": ["Smith"]})
    assert row["words_masked"] == pytest.approx((2 / 6 + 2 / 7) / 2)
    expected_loss = ((1 - C("Eva lives in Oslo, Norway.") / C(D1)) + (1 - C("Mr. Smith paid 1,500 kr.") / C(D2))) / 2
    assert row["information_loss"] == pytest.approx(expected_loss)


def test_a_suppressed_span_masks_its_words_and_loses_information(store):
    # Empty replacements remove the spans: d1 3 of 6 words, d2 2 of 7; the texts shrink.
    row = scores(store, {"d1": ["", ""], "d2": [""]})
    assert row["words_masked"] == pytest.approx((3 / 6 + 2 / 7) / 2)
    expected_loss = ((1 - C(" lives in , Norway.") / C(D1)) + (1 - C("Mr.  paid 1,500 kr.") / C(D2))) / 2
    assert row["information_loss"] == pytest.approx(expected_loss)
    assert row["information_loss"] > 0


def test_the_original_as_a_run_masks_nothing_and_loses_nothing(store):
    row = scores(store, {"d1": ["Anna Berg", "Oslo"], "d2": ["O'Neil"]})
    assert row["words_masked"] == 0.0 and row["information_loss"] == 0.0


def test_a_failed_span_is_masked_and_a_longer_pseudonym_can_lose_negative_information(store):
    # FAILED places "[FAILED]": O'Neil's 2 words masked. A pseudonym that adds text compresses
    # to more bytes than the original: information_loss < 0 (docs/metrics.md).
    long_name = "Bartholomew Quincy-Wetherspoon of Ravensworth Abbey"
    row = scores(store, {"d1": [long_name, "Oslo"], "d2": [None]})
    assert row["words_masked"] == pytest.approx((2 / 6 + 2 / 7) / 2)
    assert 1 - C(f"{long_name} lives in Oslo, Norway.") / C(D1) < 0
    assert row["information_loss"] == pytest.approx(
        ((1 - C(f"{long_name} lives in Oslo, Norway.") / C(D1)) + (1 - C("Mr. [FAILED] paid 1,500 kr.") / C(D2))) / 2)


def test_the_masking_columns_reach_metrics_csv_and_table5(store, tmp_path):
    from workbench.reports import write_report
    run_id = add_run(store, corpus(), {"d1": ["", ""], "d2": [""]})
    write_report(store, [run_id], tmp_path / "r", formats=("csv",), context=make_context())
    metrics = pd.read_csv(tmp_path / "r" / "metrics.csv", index_col="run_id")
    assert metrics.at[run_id, "words_masked"] == pytest.approx((3 / 6 + 2 / 7) / 2)
    table = pd.read_csv(tmp_path / "r" / "table5_beyond.csv", index_col="run_id")
    assert table.at[run_id, "words_masked"] == pytest.approx((3 / 6 + 2 / 7) / 2)
    assert "information_loss" in table.columns
