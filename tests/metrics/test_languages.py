"""A corpus that mixes languages is reported per language, never averaged across embedders
(workbench.metrics.languages). tiny_corpus has two English documents and one Swedish."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from tests.metrics.conftest import make_context
from workbench.metrics import compute_metrics
from workbench.metrics.diversity import figure1_ratios
from workbench.metrics.languages import by_language

FAMILIES = ("diversity", "generation", "upos", "overlap", "similarity", "entities", "tps")


class SameVector:
    """Every text the same vector: every cosine 1 (a stand-in for an embedder whose unrelated
    pairs score high, as e5's Swedish ones do)."""
    id = "test:same-vector"

    def embed(self, texts):
        return np.ones((len(texts), 8), dtype=np.float32)


def two_embedders():
    context = make_context()
    context.set_embedder("sv", SameVector())  # English keeps the bag-of-words embedder
    return context


def test_a_mixed_language_run_has_one_row_per_language_each_as_computed_on_that_language_alone(run_a):
    run_id, frame = run_a
    table = compute_metrics(frame, two_embedders(), families=FAMILIES, originals=False)
    assert list(table.index) == [f"{run_id}@en", f"{run_id}@sv"]
    assert list(table["corpus"]) == ["tiny [en]", "tiny [sv]"] and list(table["lang"]) == ["en", "sv"]
    assert list(table["spans"]) == [14, 7]
    for lang in ("en", "sv"):
        alone = compute_metrics(frame[frame["lang"] == lang].reset_index(drop=True), two_embedders(),
                                families=FAMILIES, originals=False)
        assert len(alone) == 1 and alone.index[0] == run_id  # a one-language corpus keeps its run id
        row, expected = table.loc[f"{run_id}@{lang}"], alone.iloc[0]
        for metric in alone.columns[alone.columns.get_loc("spans"):]:
            a, b = row[metric], expected[metric]
            if isinstance(b, float) and math.isnan(b):
                assert isinstance(a, float) and math.isnan(a), metric
            else:
                assert a == pytest.approx(b, abs=1e-9), metric


def test_no_row_averages_the_two_embedders(run_a):
    run_id, frame = run_a
    table = compute_metrics(frame, two_embedders(), families=("similarity",), originals=False)
    # English bag of words: (1 + 1 + 0.5) / 14; Swedish: every cosine 1. A mean over the run's 21
    # spans, (2.5 + 7) / 21, is what the report used to show: neither language's number.
    assert table.loc[f"{run_id}@en", "similarity_word_raw"] == pytest.approx(2.5 / 14, abs=1e-6)
    assert table.loc[f"{run_id}@sv", "similarity_word_raw"] == pytest.approx(1.0)
    assert not np.isclose(table["similarity_word_raw"], 9.5 / 21).any()


def test_figure1_and_the_metric_table_name_the_same_rows(run_a):
    _, frame = run_a
    table = compute_metrics(frame, make_context(), families=("diversity",))
    assert set(figure1_ratios(frame)["run_id"]) == set(table.index)


def test_splitting_twice_changes_nothing_and_the_stored_names_stay_in_their_columns(run_a):
    run_id, frame = run_a
    once = by_language(frame)
    pd.testing.assert_frame_equal(by_language(once), once)
    assert set(once["run_id"]) == {f"{run_id}@en", f"{run_id}@sv"}
    assert set(once["stored_run"]) == {run_id} and set(once["stored_corpus"]) == {"tiny"}


def test_the_report_lists_a_mixed_run_once_and_its_tables_per_language(run_a, store, tmp_path):
    from workbench.reports import write_report
    run_id, _ = run_a
    write_report(store, [run_id], tmp_path, formats=("md", "csv"), context=make_context())
    table3 = pd.read_csv(tmp_path / "table3_quality.csv")
    assert list(table3["run_id"]) == [f"{run_id}@en", f"{run_id}@sv"]
    legend = pd.read_csv(tmp_path / "run_legend.csv")
    assert list(legend["run_id"]) == [run_id] and list(legend["corpus"]) == ["tiny"]
    signature = store.resolve_run(run_id).signature
    report = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert report.count(signature) == 1 and "\n1 run. Metric models" in report  # one run, two rows
