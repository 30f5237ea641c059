"""Mean ± sd across seeds, and the cache keys of intervals and paired tests (issue 40)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from workbench.uncertainty import across_seeds, interval_key, paired_key

# --- across seeds ------------------------------------------------------------------------------


def test_mean_and_sample_sd_by_hand():
    # 0.5, 0.6, 0.7: mean 0.6, squared deviations 0.01 + 0 + 0.01 over n − 1 = 2: sd 0.1.
    summary = across_seeds([0.5, 0.6, 0.7])
    assert (summary.mean, summary.sd, summary.n) == (pytest.approx(0.6), pytest.approx(0.1), 3)
    assert summary.format() == "0.600 ± 0.100 (n = 3)"


def test_one_seed_has_no_spread_and_nan_seeds_are_counted():
    one = across_seeds([0.42, float("nan")])
    assert one.mean == 0.42 and np.isnan(one.sd) and (one.n, one.n_dropped) == (1, 1)
    assert one.format() == "0.420 (n = 1)"


# --- cache keys ----------------------------------------------------------------------------------

VALUES = [0.1, 0.5, float("nan"), 0.25]
IDS = ["d1", "d2", "d3", "d4"]
SETTINGS = {"statistic": "mean", "resamples": 1000, "seed": 13, "method": "percentile", "level": 0.95}


def test_the_key_changes_with_every_part():
    key = interval_key(VALUES, IDS, **SETTINGS)
    changed = [
        interval_key([0.1, 0.5, float("nan"), 0.26], IDS, **SETTINGS),
        interval_key(VALUES, ["d1", "d2", "d3", "d5"], **SETTINGS),
        interval_key(VALUES, [1, 2, 3, 4], **SETTINGS),
        interval_key(VALUES, ["1", "2", "3", "4"], **SETTINGS),
        interval_key(VALUES, IDS, docs=["a", "a", "b", "b"], **SETTINGS),
        interval_key(VALUES, IDS, denominators=[1, 2, 3, 4], **SETTINGS),
        *(interval_key(VALUES, IDS, **{**SETTINGS, name: value})
          for name, value in [("statistic", "ratio of sums"), ("resamples", 10_000), ("seed", 14),
                              ("method", "bca"), ("level", 0.9)]),
    ]
    assert len({key, *changed}) == len(changed) + 1


def test_the_key_ignores_how_the_same_inputs_arrive():
    key = interval_key(VALUES, IDS, **SETTINGS)
    # numpy arrays and scalars (what pandas hands over), another NaN bit pattern, -0.0 for 0.0.
    other_nan = np.array(VALUES)
    other_nan[2] = -np.nan
    assert interval_key(other_nan, np.array(IDS), **SETTINGS) == key
    assert interval_key([0.0, 1.0], [np.int64(1), np.int64(2)], **SETTINGS) == \
        interval_key([-0.0, 1.0], [1, 2], **SETTINGS)
    assert interval_key(VALUES, [np.str_(i) for i in IDS], **SETTINGS) == key
    assert interval_key(VALUES, IDS, docs=["a", "a", "b", "b"], **SETTINGS) == \
        interval_key(VALUES, IDS, docs=np.array(["a", "a", "b", "b"], dtype=object), **SETTINGS)


def test_the_key_is_the_same_in_another_process():
    # Python's hash() of a string changes from process to process (PYTHONHASHSEED); the key must not.
    code = ("from workbench.uncertainty import interval_key, paired_key;"
            f"print(interval_key({VALUES!r}, {IDS!r}, statistic='mean', resamples=1000, seed=13, "
            "method='percentile', level=0.95));"
            f"print(paired_key([0.1, 0.2], [0.3, 0.4], ['a', 'b'], test='ar', statistic='mean', draws=10, "
            "resamples=5, seed=1, method='percentile', level=0.95))").replace("nan", "float('nan')")
    here = [interval_key(VALUES, IDS, **SETTINGS),
            paired_key([0.1, 0.2], [0.3, 0.4], ["a", "b"], test="ar", statistic="mean", draws=10, resamples=5,
                       seed=1, method="percentile", level=0.95)]
    for hash_seed in ("1", "2"):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             env={**os.environ, "PYTHONHASHSEED": hash_seed})
        assert out.stdout.split() == here


def test_paired_keys_tell_the_runs_apart():
    settings = {"test": "ar", "statistic": "mean", "draws": 10_000, "resamples": 1000, "seed": 13,
                "method": "percentile", "level": 0.95}
    ab = paired_key([0.1, 0.2], [0.3, 0.4], ["a", "b"], **settings)
    assert ab != paired_key([0.3, 0.4], [0.1, 0.2], ["a", "b"], **settings)
    assert ab != paired_key([0.1, 0.2], [0.3, 0.4], ["a", "b"], **{**settings, "test": "bootstrap"})
    assert ab.startswith("uncertainty-paired-") and interval_key(VALUES, IDS, **SETTINGS) != ab
