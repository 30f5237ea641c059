"""Bootstrap intervals: worked by hand on tiny examples, against scipy.stats.bootstrap, the cluster
bootstrap on spans, and the degenerate cases (issue 40)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import scipy.stats

from workbench.infra.errors import InvalidValue
from workbench.uncertainty import (
    DOCUMENT,
    SPAN_BY_DOCUMENT,
    Interval,
    aggregate_interval,
    document_interval,
    per_row,
    resampling,
    span_interval,
)


def hand_quantile(values: list[float], q: float) -> float:
    """Linear interpolation between order statistics, written out: position q (R − 1)."""
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    below = int(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (position - below) * (ordered[above] - ordered[below])


def interval_of(sums: resampling.Sums, indices: list[list[int]], level: float, method: str = "percentile"):
    replicates = resampling.ratio_replicates(sums, np.array(indices))
    return resampling.interval_from_replicates(sums.point(), replicates, resampling.ratio_jackknife(sums),
                                               level, method)


# --- (1) by hand --------------------------------------------------------------------------------

# Three documents scoring 0, ½ and 1; five resamples of them, chosen so each mean is plain:
# [0,0,0] → 0, [0,1,2] → ½, [1,1,2] → ⅔, [2,2,2] → 1, [0,0,1] → ⅙. Sorted: 0, ⅙, ½, ⅔, 1.
DOC_VALUES = [0.0, 0.5, 1.0]
DOC_RESAMPLES = [[0, 0, 0], [0, 1, 2], [1, 1, 2], [2, 2, 2], [0, 0, 1]]


def test_document_percentile_interval_by_hand():
    sums = resampling.unit_sums(DOC_VALUES, None, None)
    assert sums.point() == 0.5
    # 50 %: the 25th and 75th percentiles sit exactly on the 2nd and 4th of five (positions 1 and 3).
    low, high, method, note = interval_of(sums, DOC_RESAMPLES, 0.5)
    assert (low, high, method, note) == (pytest.approx(1 / 6), pytest.approx(2 / 3), "percentile", "")
    # 95 %: positions 0.1 and 3.9: 0 + 0.1 × ⅙ and ⅔ + 0.9 × ⅓.
    low, high, _, _ = interval_of(sums, DOC_RESAMPLES, 0.95)
    assert low == pytest.approx(0.1 / 6)
    assert high == pytest.approx(2 / 3 + 0.9 / 3)


# Seven spans in three documents, listed out of order: a has four spans scoring 1, c has 0 and 1,
# b has one 0. Documents in order of first appearance: a, c, b, with (Σ, spans) = (4, 4), (1, 2), (0, 1).
SPAN_VALUES = [1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 1.0]
SPAN_DOCS = ["a", "c", "a", "b", "a", "c", "a"]
# [a,c,b] → 5/7, [a,a,a] → 1, [b,b,b] → 0, [b,c,c] → 2/5, [a,b,b] → 4/6. Sorted: 0, ⅖, ⅔, 5/7, 1.
SPAN_RESAMPLES = [[0, 1, 2], [0, 0, 0], [2, 2, 2], [2, 1, 1], [0, 2, 2]]


def test_span_cluster_interval_by_hand():
    sums = resampling.unit_sums(SPAN_VALUES, SPAN_DOCS, None)
    assert sums.ids == ("a", "c", "b")
    assert sums.num.tolist() == [4, 1, 0] and sums.den.tolist() == [4, 2, 1]
    assert sums.point() == pytest.approx(5 / 7)
    low, high, _, _ = interval_of(sums, SPAN_RESAMPLES, 0.5)
    assert (low, high) == (pytest.approx(2 / 5), pytest.approx(5 / 7))


def test_ratio_of_sums_by_hand():
    # Two documents: 3 of 4 tokens and 1 of 6 tokens masked; the share over tokens is 4/10, not the
    # mean of shares (0.75 + 0.1667) / 2. Resamples [0,0] → ¾, [1,1] → ⅙, [0,1] → ⅖.
    sums = resampling.unit_sums([3.0, 1.0], None, [4.0, 6.0])
    assert sums.point() == pytest.approx(0.4)
    replicates = resampling.ratio_replicates(sums, np.array([[0, 0], [1, 1], [0, 1]]))
    assert replicates.tolist() == pytest.approx([0.75, 1 / 6, 0.4])
    interval = document_interval([3.0, 1.0], denominators=[4.0, 6.0], resamples=200)
    assert interval.statistic == "ratio of sums" and interval.point == pytest.approx(0.4)
    assert 1 / 6 <= interval.low < 0.4 < interval.high <= 0.75


def test_the_public_function_draws_as_documented():
    # The draws: numpy's PCG64 from the seed, integers in [0, n) one (resamples × n) matrix (int32);
    # the replicate means and their quantiles recomputed here in plain Python.
    values = [0.1, 0.9, 0.4, 0.7, 0.0]
    indices = np.random.default_rng(7).integers(0, 5, size=(40, 5), dtype=np.int32).tolist()
    means = [sum(values[i] for i in row) / 5 for row in indices]
    interval = document_interval(values, resamples=40, seed=7, level=0.9)
    assert interval.point == pytest.approx(sum(values) / 5)
    assert interval.low == pytest.approx(hand_quantile(means, 0.05))
    assert interval.high == pytest.approx(hand_quantile(means, 0.95))
    assert (interval.resamples, interval.seed, interval.method, interval.unit) == (40, 7, "percentile", DOCUMENT)
    assert (interval.n_units, interval.n_values, interval.n_dropped) == (5, 5, 0)


# --- (2) against scipy.stats.bootstrap ------------------------------------------------------------

@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_same_replicates_give_scipys_interval(method):
    # scipy takes a bootstrap distribution already drawn (bootstrap_result, no new resamples) and
    # computes its interval from it: so the percentile rule and BCa's bias correction and
    # acceleration (jackknife) are compared exactly, without Monte Carlo noise.
    values = np.random.default_rng(5).random(40)
    sums = resampling.unit_sums(values, None, None)
    rows = np.random.default_rng(1).integers(0, 40, size=(5000, 40))
    replicates = resampling.ratio_replicates(sums, rows)
    low, high, used, _ = resampling.interval_from_replicates(sums.point(), replicates,
                                                             resampling.ratio_jackknife(sums), 0.95, method)
    theirs = scipy.stats.bootstrap((values,), np.mean, n_resamples=0, method=method.replace("bca", "BCa"),
                                   bootstrap_result=SimpleNamespace(bootstrap_distribution=replicates))
    assert used == method
    assert (low, high) == (pytest.approx(theirs.confidence_interval.low, abs=1e-12),
                           pytest.approx(theirs.confidence_interval.high, abs=1e-12))


def test_cluster_bca_is_scipys_paired_bca_over_documents():
    # The span-level statistic as scipy sees it: per document (Σ values, spans), resampled in pairs,
    # statistic Σ/Σ; its jackknife leaves one document out, as ours.
    rng = np.random.default_rng(2)
    docs = rng.integers(0, 12, 200).tolist()
    sums = resampling.unit_sums(rng.random(200), docs, None)
    replicates = resampling.ratio_replicates(sums, np.random.default_rng(3).integers(0, sums.n, (5000, sums.n)))
    low, high, used, _ = resampling.interval_from_replicates(sums.point(), replicates,
                                                             resampling.ratio_jackknife(sums), 0.95, "bca")
    theirs = scipy.stats.bootstrap((sums.num, sums.den), lambda n, d, axis=-1: n.sum(axis) / d.sum(axis),
                                   paired=True, n_resamples=0, method="BCa",
                                   bootstrap_result=SimpleNamespace(bootstrap_distribution=replicates))
    assert (low, high) == (pytest.approx(theirs.confidence_interval.low, abs=1e-12),
                           pytest.approx(theirs.confidence_interval.high, abs=1e-12))


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_independent_draws_agree_with_scipy(method):
    # Different generators, 20,000 resamples each: an endpoint's Monte Carlo error is about 0.001
    # here (values in [0, 1], 60 documents), so 0.005 is a loose bound that a wrong rule still breaks
    # (percentile and BCa differ by up to 0.01 on this skewed sample).
    values = np.random.default_rng(11).beta(0.5, 2.0, 60)
    ours = document_interval(values, resamples=20_000, seed=13, method=method)
    theirs = scipy.stats.bootstrap((values,), np.mean, n_resamples=20_000, method=method.replace("bca", "BCa"),
                                   rng=np.random.default_rng(99)).confidence_interval
    assert ours.method == method and ours.point == pytest.approx(values.mean())
    assert abs(ours.low - theirs.low) < 0.005 and abs(ours.high - theirs.high) < 0.005


def test_bca_differs_from_percentile_on_a_skewed_sample():
    # Guards the test above: on this sample the two methods are told apart by more than its tolerance's share.
    values = np.random.default_rng(11).beta(0.5, 2.0, 60)
    percentile = document_interval(values, resamples=20_000)
    bca = document_interval(values, resamples=20_000, method="bca")
    assert bca.high - percentile.high > 0.002


# --- (3) spans clustered by document --------------------------------------------------------------

def long_document_corpus(repeats: int) -> tuple[list[float], list[str]]:
    """30 one-span documents scoring 0 or 1 alternately, and one document with `repeats` identical
    spans scoring 1 (a long judgment repeating one name)."""
    values = [float(i % 2) for i in range(30)] + [1.0] * repeats
    docs = [f"short{i}" for i in range(30)] + ["long"] * repeats
    return values, docs


def test_a_long_document_of_identical_spans_does_not_narrow_the_interval():
    widths = {}
    for repeats in (300, 3000):
        values, docs = long_document_corpus(repeats)
        clustered = span_interval(values, docs, resamples=2000)
        naive = span_interval(values, list(range(len(values))), resamples=2000)  # each span its own unit
        assert clustered.unit == SPAN_BY_DOCUMENT
        assert (clustered.n_units, clustered.n_values, naive.n_units) == (31, 30 + repeats, 30 + repeats)
        assert clustered.point == naive.point
        widths[repeats] = (clustered.high - clustered.low, naive.high - naive.low)
        # 31 documents, one of them most of the spans: whether it is drawn decides the mean.
        assert widths[repeats][0] > 4 * widths[repeats][1]
    # Ten times the identical spans: the naive interval narrows (about √10 ×) as if they were ten
    # times the evidence; the documents' does not.
    assert widths[3000][1] < 0.5 * widths[300][1]
    assert widths[3000][0] > 0.8 * widths[300][0]


def test_spans_in_one_document_each_are_the_document_bootstrap():
    values = np.random.default_rng(4).random(50)
    spans = span_interval(values, [f"d{i}" for i in range(50)], seed=3, method="bca")
    documents = document_interval(values, seed=3, method="bca")
    assert (spans.point, spans.low, spans.high) == (documents.point, documents.low, documents.high)


# --- any aggregate ----------------------------------------------------------------------------------

def test_an_aggregate_of_indices_gives_the_mean_interval_when_it_is_the_mean():
    values = np.random.default_rng(6).random(30)
    mean = aggregate_interval(lambda rows: values[rows].mean(axis=1), 30, name="mean", method="bca")
    looped = aggregate_interval(per_row(lambda row: float(values[row].mean())), 30, name="mean", method="bca")
    direct = document_interval(values, method="bca")
    for interval in (mean, looped):
        assert (interval.point, interval.low, interval.high) == pytest.approx((direct.point, direct.low, direct.high))


def test_bca_falls_back_where_it_is_undefined():
    # Distinct units drawn: the point (10 of 10) is above almost every resample, so BCa's bias
    # correction is infinite (scipy returns NaN there); the percentile interval is given, and said so.
    interval = aggregate_interval(lambda rows: np.array([len(set(r.tolist())) for r in rows], dtype=float), 10,
                                  name="distinct", method="bca", resamples=500)
    assert interval.method == "percentile" and "BCa undefined" in interval.note
    assert interval.low <= interval.high < 10


# --- degenerate cases ---------------------------------------------------------------------------

def test_one_unit_has_no_interval():
    interval = document_interval([0.25])
    assert (interval.point, interval.low, interval.high) == (0.25, 0.25, 0.25)
    assert not interval.has_interval and interval.note == "one unit: no interval"
    assert interval.format() == "0.250"
    spans = span_interval([0.5, 1.0, 0.0], ["d", "d", "d"])
    assert spans.n_units == 1 and spans.n_values == 3 and not spans.has_interval and spans.point == 0.5


def test_no_units():
    interval = document_interval([float("nan"), float("nan")])
    assert np.isnan(interval.point) and np.isnan(interval.low) and interval.n_dropped == 2
    assert interval.note == "no units" and not interval.has_interval


def test_equal_values_give_a_zero_width_interval():
    for method in ("percentile", "bca"):
        interval = document_interval([0.3] * 8, method=method)
        assert interval.low == interval.high == pytest.approx(0.3)
        assert "zero width" in interval.note and interval.has_interval


def test_nan_values_are_dropped_and_counted():
    with_nan = span_interval([0.2, float("nan"), 0.8, 0.4, float("nan")], ["a", "a", "b", "c", "c"], seed=5)
    without = span_interval([0.2, 0.8, 0.4], ["a", "b", "c"], seed=5)
    assert with_nan.n_dropped == 2 and with_nan.n_values == 3 and with_nan.n_units == 3
    assert (with_nan.point, with_nan.low, with_nan.high) == (without.point, without.low, without.high)


def test_a_resample_without_denominator_is_left_out_and_said():
    # Documents with no tokens: a resample drawing only those has no share; it is left out.
    interval = document_interval([0.0, 0.0, 1.0], denominators=[0.0, 0.0, 2.0], resamples=400)
    assert "resamples left out" in interval.note and not np.isnan(interval.low)
    assert interval.point == 0.5


@pytest.mark.parametrize("settings, message", [
    ({"resamples": 0}, "resamples"), ({"level": 95}, "level"), ({"method": "bc"}, "method")])
def test_bad_settings_are_refused(settings, message):
    with pytest.raises(InvalidValue, match=message):
        document_interval([0.1, 0.2], **settings)


def test_mismatched_lengths_are_refused():
    with pytest.raises(InvalidValue, match="3 values but 2 document ids"):
        span_interval([0.1, 0.2, 0.3], ["a", "b"])


# --- (6) determinism, and the cache record ---------------------------------------------------------

def test_same_seed_same_interval_other_seed_other_draws():
    values = np.random.default_rng(8).random(127)
    for method in ("percentile", "bca"):
        assert document_interval(values, seed=21, method=method) == document_interval(values, seed=21, method=method)
        assert document_interval(values, seed=21, method=method).low != document_interval(values, seed=22,
                                                                                          method=method).low


def test_more_resamples_extend_the_same_draws():
    # The first 1,000 of 10,000 resamples are the 1,000: a report's interval and a longer check share draws.
    sums = resampling.unit_sums(np.random.default_rng(9).random(127), None, None)
    short = np.concatenate([resampling.ratio_replicates(sums, r)
                            for r in resampling.index_chunks(np.random.default_rng(13), sums.n, 1000)])
    long = np.concatenate([resampling.ratio_replicates(sums, r)
                           for r in resampling.index_chunks(np.random.default_rng(13), sums.n, 40_000)])
    assert np.array_equal(short, long[:1000])


def test_an_interval_round_trips_through_json():
    interval = document_interval([0.1, 0.5, 0.9, 0.3], method="bca")
    assert Interval.from_json(interval.to_json()) == interval
    empty = document_interval([float("nan")])
    back = Interval.from_json(empty.to_json())
    assert np.isnan(back.point) and back.note == empty.note
