"""Hypothesis properties of the intervals and paired tests (issue 40)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.uncertainty import approximate_randomisation, document_interval, paired_bootstrap, span_interval

unit_values = st.lists(st.floats(0, 1, allow_nan=False), min_size=2, max_size=40)


@settings(max_examples=60, deadline=None)
@given(values=unit_values, seed=st.integers(0, 2**32 - 1))
def test_percentile_interval_holds_the_point_and_stays_in_range(values, seed):
    interval = document_interval(values, resamples=400, seed=seed)
    assert interval.low <= interval.high
    assert 0 <= interval.low and interval.high <= 1
    if max(values) > min(values):  # non-degenerate: the mean lies inside its percentile interval
        assert interval.low <= interval.point <= interval.high
    else:
        assert interval.low == interval.high


@settings(max_examples=40, deadline=None)
@given(values=unit_values, seed=st.integers(0, 2**32 - 1))
def test_bca_interval_is_ordered_and_stays_in_range(values, seed):
    interval = document_interval(values, resamples=400, seed=seed, method="bca")
    assert interval.low <= interval.high and 0 <= interval.low and interval.high <= 1


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_span_interval_stays_in_range_and_holds_the_point(data):
    values = data.draw(st.lists(st.floats(0, 1, allow_nan=False), min_size=2, max_size=60))
    docs = data.draw(st.lists(st.integers(0, 6), min_size=len(values), max_size=len(values)))
    interval = span_interval(values, docs, resamples=400)
    assert 0 <= interval.low <= interval.high <= 1
    if interval.n_units >= 2 and interval.note == "":
        assert interval.low <= interval.point <= interval.high


@settings(max_examples=30, deadline=None)
@given(a=st.lists(st.floats(0, 1, allow_nan=False), min_size=2, max_size=20), data=st.data())
def test_paired_tests_are_symmetric_and_p_in_range(a, data):
    b = data.draw(st.lists(st.floats(0, 1, allow_nan=False), min_size=len(a), max_size=len(a)))
    run_a, run_b = dict(enumerate(a)), dict(enumerate(b))
    for test in (paired_bootstrap, approximate_randomisation):
        forward = test(run_a, run_b, resamples=200, **({"trials": 300} if test is approximate_randomisation else {}))
        backward = test(run_b, run_a, resamples=200, **({"trials": 300} if test is approximate_randomisation else {}))
        assert 0 < forward.p_value <= 1
        # Two-sided: A against B and B against A give one p-value (the same draws, |·| of the differences).
        assert np.isclose(forward.p_value, backward.p_value)
        assert np.isclose(forward.difference, -backward.difference)
        assert forward.low <= forward.high
