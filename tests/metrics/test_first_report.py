"""A report of some metric families only: the benchmark's first report (workbench.pipeline.report_benchmark
writes the families that load no model, metrics.QUICK, before the full report)."""

from __future__ import annotations

import pandas as pd

from tests.helpers.store import generated_run
from workbench.metrics import FAMILIES, QUICK, family
from workbench.pipeline import report_runs
from workbench.reports import FORMATS


def test_a_first_report_writes_every_table_with_the_rest_empty_and_says_so(store, tiny_corpus, tmp_path):
    run = generated_run(store, tiny_corpus)
    out = tmp_path / "first"
    written = report_runs(store, [run.run_id], out, families=QUICK, formats=FORMATS)
    names = {p.name for p in written}
    assert {"report.md", "metrics.csv", "table3_quality.csv", "table_perplexity.md", "headline.png"} <= names
    table = pd.read_csv(out / "metrics.csv", index_col="run_id")
    runs = table.index.str.startswith(run.run_id)
    computed = [m.name for f in QUICK for m in family(f).METRICS]
    assert table.loc[runs, "overlap_partial"].notna().all() and table.loc[runs, "form_freq_avg"].notna().all()
    assert set(computed) <= set(table.columns)
    left_out = [f for f in FAMILIES if f not in QUICK]
    for name in ("similarity_word", "rouge_1", "upos_accuracy", "perplexity_pseudo_on_original"):
        assert name in table.columns and table[name].isna().all(), name  # every table finds it, empty
    page = (out / "report.md").read_text(encoding="utf-8")
    note = next(line for line in page.splitlines() if line.startswith("**A first report**"))
    assert all(f in note for f in left_out) and "`workbench report`" in note
    assert page.index("**A first report**") < page.index("## Runs")
    quality = (out / "table3_quality.md").read_text(encoding="utf-8")
    assert "–" in quality  # the similarity columns of Table 3 read "not computed"
