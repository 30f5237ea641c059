"""metrics_comparison.png in one unit, with no constant panel (issue 42): shares were drawn in
per cent beside fractions, and a metric the same for every run of one corpus (but not of the
other) still got its panel of equal bars there. A hand-made metric table of four runs over two
corpora: fast, no store."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from workbench.reports import bar_figures
from workbench.reports.report_page import left_out_text


def _row(run_id: str, corpus: str, generator: str, **metrics) -> dict:
    return dict(run_id=run_id, corpus=corpus, generator=generator, model="ud-pud", mode="maskL", upos_filter=False,
                consistent="off", sees="context", source="generated", signature=f"sig-{run_id}", name="",
                tagger="spacy", window=2, seed=13, top_k=10, leak_guard=False, dtype=None, config=json.dumps({}),
                stored_run=run_id, stored_corpus=corpus, **metrics)


@pytest.fixture
def table() -> pd.DataFrame:
    # overlap_partial: a share (per cent in the tables); unique_ratio: a fraction; failed_rate: 0 for
    # every run (left out everywhere); similarity_word: 0.551 for both runs of tab-test only.
    rows = [_row("a" * 16, "pgv-pii-en", "random", overlap_partial=0.10, unique_ratio=0.80, failed_rate=0.0,
                 similarity_word=0.40),
            _row("b" * 16, "pgv-pii-en", "upos", overlap_partial=0.30, unique_ratio=0.60, failed_rate=0.0,
                 similarity_word=0.70),
            _row("c" * 16, "tab-test", "random", overlap_partial=0.20, unique_ratio=0.90, failed_rate=0.0,
                 similarity_word=0.551),
            _row("d" * 16, "tab-test", "upos", overlap_partial=0.25, unique_ratio=0.50, failed_rate=0.0,
                 similarity_word=0.551)]
    return pd.DataFrame(rows).set_index("run_id")


def _panels(fig) -> list:
    return [ax for ax in fig.axes if ax.get_visible() and ax.axison]


def test_the_comparison_draws_every_measure_in_one_unit(table):
    import matplotlib.pyplot as plt
    fig = bar_figures.comparison_figure(table)
    try:
        panels = _panels(fig)
        assert panels and not any("%" in ax.get_title() or ax.get_xlabel() == "%" for ax in panels)
        overlap = next(ax for ax in panels if ax.get_title().startswith("PII overlap partial"))
        assert [p.get_width() for p in overlap.patches] == pytest.approx([0.10, 0.30])  # fractions, not 10 and 30
        ticks = [t.get_text() for ax in panels for t in ax.get_xticklabels() if t.get_text()]
        assert ticks and not any(t.endswith("%") for t in ticks)
        assert bar_figures.ONE_UNIT_NOTE in fig.legends[0].get_title().get_text()
    finally:
        plt.close(fig)


def test_a_panel_the_same_for_every_run_of_one_corpus_is_left_out_there_and_named(table):
    import matplotlib.pyplot as plt
    fig = bar_figures.comparison_figure(table)
    try:
        assert fig.left_out == {"failed_rate": 0.0}
        assert fig.left_out_by_corpus == {"tab-test": {"similarity_word": 0.551}}
        titles = [ax.get_title() for ax in _panels(fig)]
        # pgv-pii-en: overlap, unique ratio, similarity; tab-test: overlap, unique ratio.
        assert len(titles) == 5 and sum("FAILED" in t for t in titles) == 0
        note = fig.legends[0].get_title().get_text()
        assert "Left out, the same for every run: FAILED rate (0)" in note
        assert "Left out, the same for every run in tab-test: " in note and "(0.551)" in note
    finally:
        plt.close(fig)
    line = left_out_text(table)  # the line under the figure in report.md says the same, in the tables' units
    assert "FAILED rate (0 %)" in line and "in tab-test" in line and "(0.551)" in line


def test_a_metric_with_an_interval_gets_error_bars_and_one_without_none(table):
    """Issue 40: where the table has a metric's 95 % interval (`_low`, `_high`), each bar shows it."""
    import matplotlib.pyplot as plt
    from matplotlib.container import ErrorbarContainer
    table["unique_ratio_low"], table["unique_ratio_high"] = [0.7, 0.5, 0.85, float("nan")], [0.9, 0.7, 0.95, 0.6]
    fig = bar_figures.comparison_figure(table)
    try:
        panels = _panels(fig)
        ratio = [ax for ax in panels if ax.get_title().startswith("unique")]
        bars = [c for ax in ratio for c in ax.containers if isinstance(c, ErrorbarContainer)]
        # pgv-pii-en: both runs have one; tab-test: only the first (the second's low end is missing)
        whiskers = [seg for c in bars for seg in c.lines[2][0].get_segments()]
        assert sorted((round(a[0], 3), round(b[0], 3)) for a, b in whiskers) == [(0.5, 0.7), (0.7, 0.9), (0.85, 0.95)]
        overlap = [ax for ax in panels if ax.get_title().startswith("PII overlap partial")]
        assert overlap and not any(isinstance(c, ErrorbarContainer) for ax in overlap for c in ax.containers)
    finally:
        plt.close(fig)


def test_a_whisker_is_the_interval_even_where_it_does_not_hold_the_bars_value(table):
    """A percentile interval need not hold its point: the whisker is drawn from the interval's own
    ends (it was clipped at the bar's end, 0.80 here, drawing [0.80, 0.90] for [0.82, 0.90]), and
    the value is written past the whisker."""
    import matplotlib.pyplot as plt
    from matplotlib.container import ErrorbarContainer
    table["unique_ratio_low"] = [0.82, 0.50, 0.85, 0.40]  # run a: 0.80, its interval wholly above it
    table["unique_ratio_high"] = [0.90, 0.70, 0.95, 0.45]  # run d: 0.50, its interval wholly below it
    fig = bar_figures.comparison_figure(table)
    try:
        ratio = [ax for ax in _panels(fig) if ax.get_title().startswith("unique")]
        bars = [c for ax in ratio for c in ax.containers if isinstance(c, ErrorbarContainer)]
        whiskers = sorted((round(a[0], 9), round(b[0], 9)) for c in bars for a, b in c.lines[2][0].get_segments())
        assert whiskers == [(0.4, 0.45), (0.5, 0.7), (0.82, 0.9), (0.85, 0.95)]
        caps = sorted(round(x, 9) for c in bars for cap in c.lines[1] for x in cap.get_xdata())
        assert caps == sorted([0.4, 0.45, 0.5, 0.7, 0.82, 0.9, 0.85, 0.95])  # a cap at each end
        value = next(t for ax in ratio for t in ax.texts if t.get_text() == "0.8")
        assert value.get_position()[0] > 0.90  # past the whisker's far end
    finally:
        plt.close(fig)
