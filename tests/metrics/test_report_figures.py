"""Report figures (issue 24 item 13): one colour per generator whatever runs are shown, a
headline figure first, no panel of equal bars, shares in per cent, the privacy–utility figure
zoomed to its runs with labels that never overlap."""

from __future__ import annotations

from contextlib import closing

import matplotlib
import numpy as np
import pandas as pd
import pytest

from tests.metrics.test_run_names import _overlaps
from workbench import metrics
from workbench.reports import bar_figures
from workbench.reports.figure_style import ordered
from workbench.reports.palette import KNOWN, ORIGINAL_COLOUR, generator_colour
from workbench.store import RunStore

matplotlib.use("Agg")
CHEAP = ("diversity", "generation", "overlap")


def _table(store_path, run_ids):
    with closing(RunStore(store_path)) as s:
        return metrics.compute_metrics(metrics.metric_frame(s, run_ids), families=CHEAP)


def _legend_colours(fig) -> dict[str, tuple]:
    legend = fig.legends[0]
    return {t.get_text(): tuple(h.get_facecolor()) for t, h in zip(legend.get_texts(), legend.legend_handles)}


def _bar_colours(fig) -> set[tuple]:
    return {tuple(p.get_facecolor()) for ax in fig.axes for p in ax.patches}


def test_every_known_generator_has_its_own_fixed_colour():
    from workbench.exchange.reference import KINDS
    from workbench.generator_contract.registry import GENERATORS
    assert set(GENERATORS) | set(KINDS) <= set(KNOWN)
    assert len(set(KNOWN.values())) == len(KNOWN)
    # Another name: the same colour in every process (CRC-32, not the salted hash()), not a known one.
    assert generator_colour("my-system") == generator_colour("my-system")
    assert generator_colour("my-system") not in KNOWN.values()


def test_a_generator_keeps_its_colour_whatever_runs_a_figure_shows(baseline_store):
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_rgba
    with closing(RunStore(baseline_store)) as s:
        runs = s.runs()
    every = [r.run_id for r in runs]  # random first (the fixture generates random, then upos)
    upos_first = [r.run_id for r in runs if r.generator == "upos"] + [runs[0].run_id]
    seen = []
    for run_ids in (every, upos_first):
        fig = bar_figures.metric_bars_figure(_table(baseline_store, run_ids))
        try:
            seen.append(_legend_colours(fig))
            assert _bar_colours(fig) <= {to_rgba(c) for c in (*KNOWN.values(), ORIGINAL_COLOUR)}
        finally:
            plt.close(fig)
    for generator in ("random", "upos"):
        key = f"generator: {generator}"
        assert seen[0][key] == seen[1][key] == to_rgba(generator_colour(generator))


@pytest.fixture(scope="module")
def baseline_table(baseline_store):
    with closing(RunStore(baseline_store)) as s:
        return _table(baseline_store, [r.run_id for r in s.runs()])


def test_a_panel_with_the_same_value_for_every_run_is_left_out_and_named(baseline_table):
    import matplotlib.pyplot as plt
    table = baseline_table
    assert (table["failed_rate"].dropna() == 0).all()  # the baselines never fail
    fig = bar_figures.metric_bars_figure(table)
    try:
        titles = [ax.get_title() for ax in fig.axes if ax.get_visible() and ax.axison]
        assert not any("FAILED" in t for t in titles)
        assert any(t.startswith("PII overlap partial") for t in titles)  # values that differ keep their panel
        assert "failed_rate" in fig.left_out
        assert "FAILED rate (0 %)" in fig.legends[0].get_title().get_text()  # named under the panels
        assert _overlaps(fig) == []  # the note runs into neither the legend nor a panel
    finally:
        plt.close(fig)


def test_shares_are_drawn_in_per_cent_as_the_tables_give_them(baseline_table):
    import matplotlib.pyplot as plt
    table = baseline_table
    fig = bar_figures.metric_bars_figure(table, ["overlap_partial", "unique_ratio"])
    try:
        first = fig.axes[0]  # the first corpus's overlap panel
        assert "%" in first.get_title() and first.get_xlabel() == "%"
        runs = [i for i in ordered(table).index if table.at[i, "corpus"] == table["corpus"].iloc[0]]
        widths = [p.get_width() for p in first.patches]
        expected = (table.loc[runs, "overlap_partial"].astype(float).fillna(0) * 100).tolist()
        assert widths == pytest.approx(expected)
        assert max(expected) > 0  # a non-zero share: its bar tells per cent from a fraction
        assert all(t.get_text().endswith("%") for t in first.get_xticklabels() if t.get_text())
        ratio = fig.axes[1]
        assert "%" not in ratio.get_title()  # the tables give uniq./doc as a fraction
    finally:
        plt.close(fig)


def test_the_headline_shows_its_measures_and_how_to_get_a_missing_one(baseline_table):
    import matplotlib.pyplot as plt
    fig = bar_figures.headline_figure(baseline_table)  # no attack stored: no TRIR
    try:
        titles = " ".join(ax.get_title() for ax in fig.axes)
        assert "unique/spans per doc" in titles and "UPOS" not in titles  # CHEAP families: no UPOS accuracy
        notes = fig.legends[0].get_title().get_text()
        assert "workbench privacy reid RUN... --attacker retrieval" in notes
        assert _overlaps(fig) == []  # the notes run into neither the legend nor a panel
    finally:
        plt.close(fig)


# -- the privacy–utility figure --------------------------------------------------------------

def _crowded_points(n: int = 14) -> pd.DataFrame:
    """n runs of one corpus bunched in a small corner of the 0–1 square (seeded), several on one spot."""
    from workbench.reports.privacy import pareto_front
    rng = np.random.default_rng(24)
    generators = ["random", "upos", "fill-mask", "original", "suppress", "label"]
    points = pd.DataFrame({"corpus": "tab-test", "run_id": [f"{k:016x}" for k in range(n)],
                           "label": [f"{generators[k % 6]} run {k}" for k in range(n)], "attacker": "retrieval",
                           "trir": 0.10 + 0.01 * rng.integers(0, 5, n), "tps": 0.6 + 0.01 * rng.integers(0, 6, n),
                           "similarity_word": 0.3 + 0.005 * rng.integers(0, 6, n),
                           "generator": [generators[k % 6] for k in range(n)]})
    for u in ("tps", "similarity_word"):
        points[f"front_{u}"] = pareto_front(points["trir"], points[u])
    return points


def test_the_privacy_utility_figure_is_zoomed_to_its_runs():
    import matplotlib.pyplot as plt

    from workbench.reports.privacy_figure import ZOOM_FLOOR, privacy_utility_fig
    points = _crowded_points()
    fig = privacy_utility_fig(points, {})
    try:
        for ax, u in zip(fig.axes[:2], ("tps", "similarity_word")):
            for (low, high), values in ((ax.get_xlim(), points["trir"]), (ax.get_ylim(), points[u])):
                assert low < values.min() and high > values.max()  # every point inside
                margin = max(0.1 * (values.max() - values.min()), ZOOM_FLOOR / 2)
                assert low == pytest.approx(values.min() - margin) and high == pytest.approx(values.max() + margin)
                assert high - low < 0.2  # not the measures' whole 0–1 scale
    finally:
        plt.close(fig)


def test_the_privacy_utility_labels_never_overlap_and_name_every_run():
    import matplotlib.pyplot as plt

    from workbench.reports.privacy_figure import privacy_utility_fig
    points = _crowded_points()
    fig = privacy_utility_fig(points, {})
    try:
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        for ax in fig.axes[:2]:
            labels = [t for t in ax.texts if t.get_text()]
            numbers = sorted(int(n) for t in labels for n in t.get_text().split(","))
            assert numbers == list(range(1, len(points) + 1))  # every run once
            boxes = [t.get_window_extent(renderer) for t in labels]
            for i, a in enumerate(boxes):
                for b in boxes[i + 1:]:
                    assert not a.overlaps(b), (a, b)
    finally:
        plt.close(fig)
