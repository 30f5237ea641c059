"""The privacy–utility figure draws each run as a cross of its two 95 % intervals (issue 40): the
whiskers are read back from the matplotlib artists and compared with the table's `_low` / `_high`."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from workbench.reports.privacy import privacy_utility_points
from workbench.reports.privacy_figure import TRIR_WHISKERS, UTILITY_WHISKERS, privacy_utility_fig

# A metric table as build_report joins it with the privacy measures: three runs of one corpus.
# Run c has no TPS interval (too few documents, say) and run b's TRIR interval does not hold its
# point (a percentile interval need not): both are drawn as the table has them.
TABLE = pd.DataFrame({
    "source": "run", "corpus": "tab-test", "stored_run": ["a" * 16, "b" * 16, "c" * 16],
    "generator": ["random", "surrogate", "label"], "model": "", "name": ["random", "surrogate", "label"],
    "trir_retrieval": [0.40, 0.25, 0.10], "trir_retrieval_low": [0.31, 0.26, 0.05],
    "trir_retrieval_high": [0.48, 0.33, 0.16],
    "tps": [0.70, 0.80, 0.50], "tps_low": [0.66, 0.77, np.nan], "tps_high": [0.74, 0.84, np.nan],
    "similarity_word": [0.30, 0.35, 0.10], "similarity_word_low": [0.28, 0.33, 0.08],
    "similarity_word_high": [0.32, 0.37, 0.12],
}, index=pd.Index(["a" * 16, "b" * 16, "c" * 16], name="run_id"))


def whiskers(ax, gid: str) -> dict[tuple[float, float], tuple[float, float]]:
    """The segments of the panel's whiskers with this gid: {fixed coordinate pair: (start, end)};
    a horizontal whisker ((x0, y), (x1, y)) is keyed by y, a vertical one by x."""
    (collection,) = [c for c in ax.collections if c.get_gid() == gid]
    out = {}
    for (x0, y0), (x1, y1) in collection.get_segments():
        if gid == TRIR_WHISKERS:
            assert y0 == y1  # horizontal
            out[round(y0, 9)] = (x0, x1)
        else:
            assert x0 == x1  # vertical
            out[round(x0, 9)] = (y0, y1)
    return out


def test_points_carry_both_intervals_from_the_table():
    points = privacy_utility_points(TABLE).set_index("run_id")
    assert points["trir_low"].tolist() == TABLE["trir_retrieval_low"].tolist()
    assert points["trir_high"].tolist() == TABLE["trir_retrieval_high"].tolist()
    assert points["tps_high"].tolist()[:2] == [0.74, 0.84] and math.isnan(points.at["c" * 16, "tps_low"])


@pytest.mark.parametrize("utility", ["tps", "similarity_word"])
def test_each_run_is_a_cross_of_the_tables_intervals(utility):
    import matplotlib.pyplot as plt
    points = privacy_utility_points(TABLE)
    fig = privacy_utility_fig(points, {})
    try:
        ax = next(a for a in fig.axes if a.get_ylabel().startswith({"tps": "TPS", "similarity_word": "word"}[utility]))
        across, up = whiskers(ax, TRIR_WHISKERS), whiskers(ax, UTILITY_WHISKERS)
        for _run_id, row in TABLE.iterrows():
            # horizontal: TRIR's interval at the run's utility; vertical: the utility's at its TRIR
            assert across[round(row[utility], 9)] == pytest.approx((row["trir_retrieval_low"],
                                                                    row["trir_retrieval_high"]))
            if math.isnan(row[utility + "_low"]):
                assert round(row["trir_retrieval"], 9) not in up  # no interval: no vertical whisker
            else:
                assert up[round(row["trir_retrieval"], 9)] == pytest.approx((row[utility + "_low"],
                                                                             row[utility + "_high"]))
        # the zoom keeps every whisker in view (run a's TRIR interval reaches furthest right)
        x0, x1 = ax.get_xlim()
        assert x0 < TABLE["trir_retrieval_low"].min() and x1 > TABLE["trir_retrieval_high"].max()
        legend = [t.get_text() for t in fig.axes[-1].get_legend().get_texts()]
        assert "whiskers: 95 % intervals" in legend
    finally:
        plt.close(fig)


def test_without_intervals_no_whiskers_are_drawn():
    import matplotlib.pyplot as plt
    bare = TABLE[[c for c in TABLE.columns if not c.endswith(("_low", "_high"))]]
    fig = privacy_utility_fig(privacy_utility_points(bare), {})
    try:
        assert not [c for ax in fig.axes for c in ax.collections if c.get_gid() in (TRIR_WHISKERS, UTILITY_WHISKERS)]
    finally:
        plt.close(fig)
