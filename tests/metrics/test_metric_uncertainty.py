"""Issue 40 wired in: each metric's interval and mark in the metric table, the report's cells and
`workbench compare`, over hand-made runs whose per-unit values are known."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from tests.helpers.entry_point import wb
from tests.metrics.conftest import RUN_A, add_run, make_context
from workbench.metrics import compute_metrics, metric_frame
from workbench.metrics.best_runs import BEST, TIED
from workbench.metrics.compare_runs import compare_runs
from workbench.reports.table_specs import Column
from workbench.reports.tables import PLUS_MINUS, metric_cell
from workbench.uncertainty import approximate_randomisation, document_interval, paired_bootstrap, span_interval

FAMILIES = ["diversity", "generation", "overlap", "tpi"]
# Run B: every span kept verbatim in en-1 (overlap 1 there), the others as run A.
RUN_B = {**RUN_A, "en-1": ["Anna Berg", "Oslo", "1980", "Oslo", "2001", "Anna Berg", "Nordbank", "Per", "Oslo",
                           "teacher"]}


def _runs(store, tiny_corpus):
    a = add_run(store, tiny_corpus, RUN_A, name="a")
    b = add_run(store, tiny_corpus, RUN_B, name="b")
    return a, b


def test_a_span_metric_interval_resamples_the_runs_spans_by_document(store, tiny_corpus):
    a, b = _runs(store, tiny_corpus)
    frame = metric_frame(store, [a, b])
    table = compute_metrics(frame, make_context(), families=FAMILIES, per_language=False, uncertainty=True)
    # By hand: overlap_partial per span of run B, clustered by its document.
    from workbench.metrics.overlap import span_values
    spans = span_values(frame[frame["run_id"] == b])
    expected = span_interval(spans["overlap_partial"].to_numpy(), frame.loc[frame["run_id"] == b, "doc_id"].tolist())
    assert table.at[b, "overlap_partial"] == pytest.approx(expected.point)
    assert (table.at[b, "overlap_partial_low"], table.at[b, "overlap_partial_high"]) == pytest.approx(
        (expected.low, expected.high))
    assert table.at[b, "overlap_partial_low"] < table.at[b, "overlap_partial"] <= table.at[b, "overlap_partial_high"]
    # The same command twice: the same intervals (seeded resampling).
    again = compute_metrics(metric_frame(store, [a, b]), make_context(), families=FAMILIES, per_language=False,
                            uncertainty=True)
    assert again.at[b, "overlap_partial_low"] == table.at[b, "overlap_partial_low"]


def test_a_document_metric_interval_resamples_documents_and_others_have_none(store, tiny_corpus):
    a, _ = _runs(store, tiny_corpus)
    frame = metric_frame(store, [a])
    table = compute_metrics(frame, make_context(), families=FAMILIES, per_language=False, uncertainty=True)
    from workbench.metrics.diversity import document_unique_ratios
    ratios = document_unique_ratios(frame)["ratio"].to_numpy()
    expected = document_interval(ratios)
    assert (table.at[a, "unique_ratio_low"], table.at[a, "unique_ratio_high"]) == pytest.approx(
        (expected.low, expected.high))
    # A vocabulary statistic is no mean over units: no interval columns at all.
    assert "form_freq_avg_low" not in table and "unique_forms_high" not in table
    # The Original rows (diversity of the originals) have no run's units: NaN, not an interval.
    original = [i for i in table.index if str(i).startswith("original:")]
    assert original and all(math.isnan(table.at[i, "unique_ratio_low"]) for i in original)


def test_the_best_run_and_the_runs_not_different_from_it_are_marked(store, tiny_corpus):
    a, b = _runs(store, tiny_corpus)
    table = compute_metrics(metric_frame(store, [a, b]), make_context(), families=FAMILIES, per_language=False,
                            uncertainty=True)
    # overlap_partial: lower is better, so A (which kept nothing) is best; B differs in one document
    # of three, which approximate randomisation cannot call significant.
    assert table.at[a, "overlap_partial_mark"] == BEST and table.at[b, "overlap_partial_mark"] == TIED
    # a metric with no direction (multi-word rate is descriptive) is not marked
    assert "multiword_rate_mark" not in table


def test_a_cell_shows_its_interval_scaled_and_its_mark():
    row = pd.Series({"m": 0.612, "m_low": 0.581, "m_high": 0.640, "m_mark": TIED})
    assert metric_cell(row, Column("m", "M")) == "0.612 [0.581, 0.640]†"
    assert metric_cell(row, Column("m", "M", scale=100, digits=1), PLUS_MINUS) == "61.2 ±3.0†"
    assert metric_cell(pd.Series({"m": 0.5}), Column("m", "M")) == "0.500"
    assert metric_cell(pd.Series({"m": np.nan, "m_low": 0.1, "m_high": 0.2}), Column("m", "M")) == "–"


def test_compare_gives_the_paired_tests_of_the_two_runs(store, tiny_corpus):
    a, b = _runs(store, tiny_corpus)
    table = compare_runs(store, a[:8], b[:8], metrics=["overlap_partial", "unique_ratio"], context=make_context())
    assert set(table["metric"]) == {"overlap_partial", "unique_ratio"} and set(table["lang"]) == {"en", "sv"}
    frame = metric_frame(store, [a, b])
    from workbench.metrics.overlap import span_values
    en = frame[frame["lang"] == "en"]
    va = pd.Series(span_values(en[en["run_id"] == a])["overlap_partial"].to_numpy(),
                   index=list(zip(en.loc[en["run_id"] == a, "doc_id"], en.loc[en["run_id"] == a, "span_index"])))
    vb = pd.Series(span_values(en[en["run_id"] == b])["overlap_partial"].to_numpy(), index=va.index)
    boot = paired_bootstrap(va, vb, docs=lambda unit: unit[0])
    ar = approximate_randomisation(va, vb, docs=lambda unit: unit[0])
    [row] = table[(table["lang"] == "en") & (table["metric"] == "overlap_partial")].itertuples()
    assert row.difference == pytest.approx(va.mean() - vb.mean()) and row.difference < 0
    assert (row.low, row.high, row.p_bootstrap, row.p_randomisation) == pytest.approx(
        (boot.low, boot.high, boot.p_value, ar.p_value))
    # each run's own interval beside it, the report's: its spans resampled by document
    own = {run: span_interval(v.to_numpy(), [unit[0] for unit in v.index]) for run, v in (("a", va), ("b", vb))}
    assert (row.a_low, row.a_high, row.b_low, row.b_high) == pytest.approx(
        (own["a"].low, own["a"].high, own["b"].low, own["b"].high))
    [same] = table[(table["lang"] == "sv") & (table["metric"] == "overlap_partial")].itertuples()
    # Swedish: one document, the same spans in both runs: no test can be made of one unit (NaN, printed "–")
    assert same.difference == 0 and same.units == 1 and math.isnan(same.p_randomisation)
    assert math.isnan(same.a_low) and math.isnan(same.b_high)  # nor an interval
    # as the dashboard's Compare page shows them
    from workbench.metrics.compare_runs import comparison_cells
    cells = comparison_cells(table).set_index(["lang", "metric"])
    assert cells.at[("en", "overlap_partial"), "A"] == f"{row.a:.3f} [{row.a_low:.3f}, {row.a_high:.3f}]"
    assert cells.at[("en", "overlap_partial"), "A − B"] == f"{row.difference:+.3f} [{row.low:+.3f}, {row.high:+.3f}]"
    assert cells.at[("sv", "overlap_partial"), "A"] == f"{same.a:.3f}"  # no interval: the figure alone
    assert cells.at[("sv", "overlap_partial"), "p bootstrap"] == "–"


def test_compare_on_the_command_line_and_its_refusals(baseline_store):
    from workbench.store import RunStore
    runs = {(r.corpus_name, r.generator): r.run_id for r in RunStore(baseline_store, create=False).runs()}
    a, b = runs[("pgv-pii-en", "random")], runs[("pgv-pii-en", "upos")]
    done = wb("compare", a[:8], b[:8], "--metric", "upos_accuracy", store=baseline_store)
    assert done.returncode == 0, done.stderr
    assert "upos_accuracy" in done.stdout and "p AR" in done.stdout
    other = wb("compare", a, runs[("pgv-pii-sv", "upos")], store=baseline_store)
    assert other.returncode == 2 and "over the same corpus" in other.stderr and "Traceback" not in other.stderr
    unknown = wb("compare", a, b, "--metric", "upos_acc", store=baseline_store)
    assert unknown.returncode == 2 and "no metric 'upos_acc'" in unknown.stderr


def test_a_report_without_intervals_has_the_same_figures_and_no_interval_columns(store, tiny_corpus):
    # MetricConfig.intervals=False (`workbench report --no-intervals`): the bare figures of before.
    from workbench.reports.content import build_report
    a, b = _runs(store, tiny_corpus)
    tables = {intervals: build_report(store, [a, b], context=make_context(intervals=intervals),
                                      families=("diversity", "overlap")).table for intervals in (True, False)}
    with_intervals, without = tables[True], tables[False]
    assert "overlap_partial_low" in with_intervals and "overlap_partial_mark" in with_intervals
    # (the perplexity family's own interval columns stay, as every family's metrics do: not computed here)
    assert not [c for c in without.columns if c.startswith(("overlap", "unique")) and c.endswith(("_low", "_mark"))]
    assert not [c for c in without.columns if c.endswith("_mark")]
    shared = [c for c in without.columns if c in with_intervals.columns]
    pd.testing.assert_frame_equal(without[shared], with_intervals[shared])


def test_report_on_the_command_line_computes_only_the_families_named_and_no_intervals(baseline_store, tmp_path):
    from workbench.store import RunStore
    run = next(r.run_id for r in RunStore(baseline_store, create=False).runs() if r.corpus_name == "pgv-pii-en")
    done = wb("report", run, "--out", tmp_path, "--family", "diversity", "--no-intervals", "--format", "csv",
              "--no-progress", store=baseline_store)
    assert done.returncode == 0, done.stderr
    table = pd.read_csv(tmp_path / "metrics.csv", index_col="run_id")
    assert table.at[run, "unique_ratio"] > 0 and math.isnan(table.at[run, "overlap_partial"])  # not computed
    assert "unique_ratio_low" not in table
    wrong = wb("report", run, "--out", tmp_path / "x", "--family", "nmii", store=baseline_store)
    assert wrong.returncode == 2 and "nmii" in wrong.stderr and "Traceback" not in wrong.stderr
