"""Text Preserved Information (TAE; workbench/metrics/tpi.py), worked out by hand.

Two documents (one corpus, so one word-frequency table):
    d1  "Anna likes Oslo."   spans Anna (PERSON), Oslo (LOC); outside: likes
    d2  "Anna likes tea."    span Anna (PERSON); outside: likes, tea
Word counts anna 2, likes 2, oslo 1, tea 1: N = 6 words, V = 4 types, add-one denominator
N + V + 1 = 11, so IC(anna) = IC(likes) = a = ln(11/3) and IC(oslo) = IC(tea) = o = ln(11/2)
(tps.InformationContent). Each document's total information is 2a + o.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from tests.metrics.conftest import add_run, make_context
from workbench.data_model import Corpus
from workbench.loaders.validate import RawSpan, build_document
from workbench.metrics import compute_metrics, family, metric_frame

A, OTHER = math.log(11 / 3), math.log(11 / 2)
TOTAL = 2 * A + OTHER


def corpus() -> Corpus:
    return Corpus("tpi", "test", (
        build_document("tpi", "d1", "Anna likes Oslo.", "en", [RawSpan(0, 4, "PERSON"), RawSpan(11, 15, "LOC")]),
        build_document("tpi", "d2", "Anna likes tea.", "en", [RawSpan(0, 4, "PERSON")]),
    ))


def tpi(store, pseudonyms: dict[str, list], the_corpus: Corpus | None = None) -> float:
    frame = metric_frame(store, [add_run(store, the_corpus or corpus(), pseudonyms, name=str(pseudonyms))])
    result = family("tpi").compute(frame, make_context())
    assert len(result) == 1
    return float(result["tpi"].iloc[0])


@pytest.mark.parametrize("pseudonyms, expected, why", [
    ({"d1": ["Anna", "Oslo"], "d2": ["Anna"]}, 1.0, "every span replaced by itself: nothing lost"),
    ({"d1": ["", "Oslo"], "d2": ["Anna"]}, ((A + OTHER) / TOTAL + 1) / 2,
     "a suppressed span loses its IC; d2 untouched; mean over documents"),
    ({"d1": ["Bo", None], "d2": ["anna"]}, (A / TOTAL + (A + OTHER) / TOTAL) / 2,
     "a pseudonym and a FAILED span keep nothing; a change of case is a change"),
    ({"d1": ["Bo", "Bergen"], "d2": ["Bo"]}, ((A) / TOTAL + (A + OTHER) / TOTAL) / 2,
     "only the words outside the spans are kept"),
])
def test_tpi_by_hand(store, pseudonyms, expected, why):
    assert tpi(store, pseudonyms) == pytest.approx(expected, abs=1e-12), why


def test_an_over_masked_document_keeps_nothing(store):
    # Every word of the document lies in a span: all of them changed leaves TPI 0, not NaN.
    over = Corpus("over", "test", (build_document("over", "d", "Anna Oslo", "en",
                                                  [RawSpan(0, 4, "PERSON"), RawSpan(5, 9, "LOC")]),))
    assert tpi(store, {"d": ["", "PLACE"]}, over) == 0.0
    # One of the two kept: its share of the IC (anna and oslo once each: equal IC) = 1/2.
    assert tpi(store, {"d": ["Anna", ""]}, over) == pytest.approx(0.5)


def test_tpi_is_tps_without_similarity(store):
    # A replacement close to its original raises TPS, never TPI: TPI <= TPS (bag-of-words cosine).
    frame = metric_frame(store, [add_run(store, corpus(), {"d1": ["Anna Berg", "Oslo"], "d2": ["Bo"]})])
    row = compute_metrics(frame, make_context(), families=("tps", "tpi"), originals=False).iloc[0]
    assert row["tpi"] == pytest.approx(((A + OTHER) / TOTAL + (A + OTHER) / TOTAL) / 2)
    assert row["tpi"] < row["tps"]


def test_tpi_reaches_metrics_csv_and_table5(store, tmp_path):
    from workbench.reports import write_report
    run_id = add_run(store, corpus(), {"d1": ["", "Oslo"], "d2": ["Anna"]})
    write_report(store, [run_id], tmp_path / "r", formats=("csv",), context=make_context())
    for name in ("metrics.csv", "table5_beyond.csv"):
        table = pd.read_csv(tmp_path / "r" / name, index_col="run_id")
        assert table.at[run_id, "tpi"] == pytest.approx(((A + OTHER) / TOTAL + 1) / 2), name


def test_own_detections_outside_the_spans_take_the_information_of_the_words_they_touch():
    # Words outside the spans at [0, 4) IC 1, [5, 9) IC 2, [10, 14) IC 3; one span of IC 4: total 10.
    # An imported system's edit over [4, 10) touches only the word at [5, 9) (ends are exclusive).
    from workbench.metrics.tps import DocumentInformation
    info = DocumentInformation(((0, 4, 1.0), (5, 9, 2.0), (10, 14, 3.0)), np.array([4.0]))
    assert info.share_kept(np.array([1.0])) == 1.0
    assert info.share_kept(np.array([0.0])) == pytest.approx(0.6)
    assert info.share_kept(np.array([0.0]), [(4, 10)]) == pytest.approx(0.4)
    assert info.share_kept(np.array([0.0]), [(0, 14)]) == 0.0  # everything masked: nothing kept


def test_an_imported_systems_own_detection_loses_the_words_it_replaced(store):
    # d2's "tea" (no corpus span) suppressed by the system's own detector: d2 keeps likes and the
    # span Anna (kept as itself), 2a of 2a + o; d1 untouched.
    from workbench.store.own_detections import save_own_detections
    run_id = add_run(store, corpus(), {"d1": ["Anna", "Oslo"], "d2": ["Anna"]})
    save_own_detections(store, run_id, {"d2": [(11, 14, "")]})
    result = family("tpi").compute(metric_frame(store, [run_id]), make_context())
    assert result.at[run_id, "tpi"] == pytest.approx((1 + 2 * A / TOTAL) / 2)


def test_tps_also_loses_the_words_an_own_detection_replaced(store):
    # As above for TPS: every span kept as itself (similarity 1), d2's "tea" suppressed outside the
    # spans; d2 keeps Anna and likes, 2a of 2a + o; without the own detection both read 1.
    from workbench.store.own_detections import save_own_detections
    run_id = add_run(store, corpus(), {"d1": ["Anna", "Oslo"], "d2": ["Anna"]})
    frame = metric_frame(store, [run_id])
    assert family("tps").compute(frame, make_context()).at[run_id, "tps"] == pytest.approx(1.0)
    save_own_detections(store, run_id, {"d2": [(11, 14, "")]})
    result = family("tps").compute(metric_frame(store, [run_id]), make_context())
    assert result.at[run_id, "tps"] == pytest.approx((1 + 2 * A / TOTAL) / 2)
    assert result.at[run_id, "tps_raw"] == pytest.approx((1 + 2 * A / TOTAL) / 2)
