"""One home for pieces the report and the dashboard share (issue 11 item 7 b, c)."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from tests.metrics.conftest import RUN_A, add_run, make_context
from workbench.metrics import metric_frame
from workbench.metrics.diversity import document_unique_ratios, figure1_ratios
from workbench.metrics.languages import by_language
from workbench.metrics.metric_frame import ORIGINAL_RUN_PREFIX, is_original, originals_frame
from workbench.reports import write_report

ROOT = Path(__file__).resolve().parents[2]


def _sources():
    for folder in ("workbench", "adapters", "bench"):
        yield from (ROOT / folder).rglob("*.py")


def test_the_original_run_prefix_is_written_in_one_place(store, tiny_corpus):
    # The pseudo run id of the originals' rows was spelt "original:" in five places.
    where = [p.relative_to(ROOT).as_posix() for p in _sources()
             if re.search(r"""["']original:""", p.read_text(encoding="utf-8"))]
    assert where == []
    frame, run_ids = _frame_of_two_runs(store, tiny_corpus)
    originals = originals_frame(frame)
    assert all(is_original(row) for _, row in originals.iterrows()) and ORIGINAL_RUN_PREFIX == "original:"
    assert all(i.startswith(ORIGINAL_RUN_PREFIX) for i in originals["run_id"])  # the label users read
    assert not any(is_original(row) for _, row in frame.iterrows())


def test_figure1_data_has_one_function_that_the_report_and_page_call(tmp_path, store, tiny_corpus):
    frame, run_ids = _frame_of_two_runs(store, tiny_corpus)
    ratios = figure1_ratios(frame)
    frame = by_language(frame)  # tiny_corpus mixes languages: the metric table's rows per language
    expected = document_unique_ratios(pd.concat([originals_frame(frame), frame], ignore_index=True))
    pd.testing.assert_frame_equal(ratios, expected)
    write_report(store, run_ids, tmp_path, formats=("csv",), context=make_context())
    written = pd.read_csv(tmp_path / "figure1_unique_ratio.csv")
    assert written[["run_id", "doc_id", "spans", "unique"]].values.tolist() == \
        ratios[["run_id", "doc_id", "spans", "unique"]].values.tolist()
    # One report assembly (reports.content.build_report): the dashboard shows what it built.
    assert "figure1_ratios(" in (ROOT / "workbench/reports/content.py").read_text(encoding="utf-8")
    for other in ("workbench/reports/files.py", "workbench/dashboard/pages/2_Metrics.py"):
        text = (ROOT / other).read_text(encoding="utf-8")
        assert "figure1_ratios(" not in text and "document_unique_ratios" not in text, other


def _frame_of_two_runs(store, corpus):
    a = add_run(store, corpus, RUN_A, name="a")
    b = add_run(store, corpus, {d: [t.upper() if t else None for t in ts] for d, ts in RUN_A.items()}, name="b")
    return metric_frame(store, [a, b]), [a, b]
