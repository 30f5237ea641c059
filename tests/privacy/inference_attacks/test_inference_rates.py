"""The disclosure rate as a pure function of per-span results, counted by hand, and its interval."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import scipy.stats

from workbench.privacy.inference_attacks.inference import disclosure_rates

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


# Issue 40: the disclosure rate is a mean over spans, so its interval resamples documents, each
# with all its spans. Eight spans of run r3 in three documents, listed out of order; the failed span
# is no result. Per document in doc_id order (Σ disclosed, spans): d1 (2, 3), d2 (0, 1), d3 (1, 3).
SPANS_BY_DOCUMENT = [  # doc, disclosed by a guess, replacement discloses, note
    ("d3", False, False, ""), ("d1", True, False, ""), ("d3", False, True, ""), ("d2", False, False, ""),
    ("d1", False, True, ""), ("d3", False, False, ""), ("d1", False, False, ""),
    ("d2", True, True, "no valid JSON after 3 requests"),
]


def spans_by_document():
    return pd.DataFrame([("r3", *row) for row in SPANS_BY_DOCUMENT],
                        columns=["run_id", "doc_id", "disclosed", "replacement_discloses", "note"]).assign(
        attack_key="mlm-x-n5-00000000")


def hand_cluster_interval(num: list[float], den: list[float], resamples=1000, seed=13, level=0.95):
    """The documented draws (numpy's PCG64 from the seed, one resamples × n matrix of document
    indices), each replicate Σ disclosed / Σ spans of the drawn documents, and the percentile rule
    written out: linear interpolation between sorted replicates at position q (R − 1)."""
    n = len(num)
    rows = np.random.default_rng(seed).integers(0, n, size=(resamples, n), dtype=np.int32).tolist()
    replicates = sorted(sum(num[i] for i in row) / sum(den[i] for i in row) for row in rows)

    def quantile(q):
        position = q * (len(replicates) - 1)
        below = int(position)
        above = min(below + 1, len(replicates) - 1)
        return replicates[below] + (position - below) * (replicates[above] - replicates[below])
    return quantile((1 - level) / 2), quantile((1 + level) / 2)


def test_the_disclosure_interval_resamples_documents_with_their_spans_by_hand():
    (row,) = disclosure_rates(spans_by_document()).to_dict("records")
    assert row["spans"] == 7 and row["disclosure"] == pytest.approx(3 / 7)
    low, high = hand_cluster_interval([2, 0, 1], [3, 1, 3])
    assert (row["disclosure_low"], row["disclosure_high"]) == (pytest.approx(low, abs=1e-12),
                                                               pytest.approx(high, abs=1e-12))
    assert 0 <= low < 3 / 7 < high <= 2 / 3  # no resample of these documents discloses more than d1's 2 of 3
    # scipy's percentile rule over the same replicates (documents resampled as (Σ, spans) pairs)
    num, den = np.array([2.0, 0.0, 1.0]), np.array([3.0, 1.0, 3.0])
    draws = np.random.default_rng(13).integers(0, 3, size=(1000, 3), dtype=np.int32)
    replicates = num[draws].sum(axis=1) / den[draws].sum(axis=1)
    theirs = scipy.stats.bootstrap((num, den), lambda n, d, axis=-1: n.sum(axis) / d.sum(axis), paired=True,
                                   n_resamples=0, method="percentile",
                                   bootstrap_result=SimpleNamespace(bootstrap_distribution=replicates))
    assert row["disclosure_low"] == pytest.approx(theirs.confidence_interval.low, abs=1e-12)
    assert row["disclosure_high"] == pytest.approx(theirs.confidence_interval.high, abs=1e-12)


def test_the_disclosure_interval_does_not_depend_on_the_order_spans_come_in():
    frame = spans_by_document()
    shuffled = frame.sample(frac=1.0, random_state=3)
    columns = ["disclosure_low", "disclosure_high"]
    assert (disclosure_rates(shuffled)[columns].to_numpy().tolist()
            == disclosure_rates(frame)[columns].to_numpy().tolist())


def test_the_disclosure_interval_per_label_and_without_documents():
    rates = disclosure_rates(spans_by_document().assign(label=["A", "A", "B", "B", "B", "B", "A", "A"]),
                             by=["run_id", "label"]).set_index("label")
    # label A: d3 (0 of 1), d1 (1 of 2): two documents, an interval; label B: d1, d2, d3 one span each
    assert (rates.loc["A", "spans"] == 3
            and rates.loc["A", "disclosure_low"] <= 1 / 3 <= rates.loc["A", "disclosure_high"])
    assert rates.loc["B", "disclosure"] == pytest.approx(2 / 4)
    one_document = disclosure_rates(spans_by_document().assign(doc_id="d1"))
    assert one_document[["disclosure_low", "disclosure_high"]].isna().all(axis=None)  # one draw: no interval
    assert disclosure_rates(frame())[["disclosure_low", "disclosure_high"]].isna().all(axis=None)  # no doc_id
