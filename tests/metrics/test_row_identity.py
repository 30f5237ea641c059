"""A metric-table row says what it is in columns read by name (stored_run, stored_corpus,
source; workbench.metrics.metric_frame), never by taking its id or its corpus label apart: a
corpus whose name looks like a part of a row id is reported under its own name."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.metrics.conftest import RUN_A, add_run, make_context
from workbench.data_model import Corpus
from workbench.metrics import compute_metrics, is_original, metric_frame
from workbench.reports import write_report


def _corpus(name: str, documents) -> Corpus:
    return Corpus(name, "tests/metrics/test_row_identity.py", tuple(documents))


# Each name mimics a piece of a row id or of a corpus label: " [sv]" is the language part
# that by_language appends (the legend once cut it off a one-language corpus: "news"),
# "original:" the Original rows' id, "@" the separator of a language's part of a run.
NAMES = ["news [sv]", "original:news", "news@2024", "original:news@sv [sv]"]


@pytest.mark.parametrize("name", NAMES)
def test_a_one_language_corpus_keeps_its_name_and_its_run_in_every_output(store, tiny_corpus, tmp_path, name):
    swedish = _corpus(name, [d for d in tiny_corpus.documents if d.lang == "sv"])
    run_id = add_run(store, swedish, {"sv-1": RUN_A["sv-1"]})
    table = compute_metrics(metric_frame(store, [run_id]), make_context(), families=("diversity",))
    assert [is_original(row) for _, row in table.iterrows()] == [True, False]
    assert list(table["corpus"]) == [name, name] and list(table["stored_corpus"]) == [name, name]
    assert list(table["stored_run"]) == [None, run_id]

    write_report(store, [run_id], tmp_path, formats=("md", "csv"), context=make_context())
    legend = pd.read_csv(tmp_path / "run_legend.csv")
    assert legend[["run_id", "corpus"]].values.tolist() == [[run_id, name]]
    table2 = pd.read_csv(tmp_path / "table2_diversity.csv", keep_default_na=False)
    assert list(table2["run_id"]) == [f"original:{name}", run_id] and list(table2["corpus"]) == [name, name]
    assert list(table2["source"]) == ["original", "generated"]
    markdown = (tmp_path / "table2_diversity.md").read_text(encoding="utf-8")
    assert f"| {name} | Original |  |" in markdown and f"| {run_id[:8]} |" in markdown
    report = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert f"**{name}**" in report and "\n1 run. Metric models" in report


@pytest.mark.parametrize("name", NAMES)
def test_a_mixed_corpus_is_split_per_language_under_its_own_name(store, tiny_corpus, tmp_path, name):
    mixed = _corpus(name, tiny_corpus.documents)
    run_id = add_run(store, mixed, RUN_A)
    table = compute_metrics(metric_frame(store, [run_id]), make_context(), families=("diversity",))
    runs = table[[not is_original(row) for _, row in table.iterrows()]]
    assert list(runs.index) == [f"{run_id}@en", f"{run_id}@sv"]
    assert list(runs["corpus"]) == [f"{name} [en]", f"{name} [sv]"] and list(runs["lang"]) == ["en", "sv"]
    assert set(table["stored_corpus"]) == {name} and list(runs["stored_run"]) == [run_id, run_id]

    write_report(store, [run_id], tmp_path, formats=("csv",), context=make_context())
    legend = pd.read_csv(tmp_path / "run_legend.csv")
    assert legend[["run_id", "corpus"]].values.tolist() == [[run_id, name]]
