"""One report assembly (issue 25): build_report computes a report's content once; the files of
`workbench report` and the dashboard's figures are both rendered from that one record."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.metrics.conftest import make_context
from tests.metrics.test_per_label import _annotate
from workbench.infra.errors import WorkbenchError
from workbench.reports import build_report
from workbench.reports.figures import png_bytes
from workbench.reports.files import report_files, write_content


def test_a_figure_returned_is_the_figure_written(run_a, store, tmp_path):
    run_id, _ = run_a
    _annotate(store, run_id)
    content = build_report(store, [run_id], context=make_context())
    figures = content.figures()
    # No stored TRIR: no privacy–utility figure; annotations: Table 6 per label is drawn; the
    # agreement family computed: its figure.
    assert list(figures) == ["headline", "per_label", "agreement", "table6_by_label", "figure1_unique_ratio",
                             "metrics_comparison"]
    written = {p.name: p for p in write_content(content, tmp_path / "report", ("png",))}
    assert list(written) == [f"{name}.png" for name in figures]
    for name, figure in figures.items():  # the dashboard shows these bytes (data.report_png)
        assert png_bytes(figure) == written[f"{name}.png"].read_bytes(), name


def test_each_file_is_written_once_in_the_format_of_its_name(run_a, store, tmp_path):
    run_id, _ = run_a
    content = build_report(store, [run_id], context=make_context())
    names = [f.name for f in report_files(content, ("md", "tex", "csv", "png"))]
    assert len(names) == len(set(names)) and names[0] == "headline.png" and names[-1] == "report.md"
    written = write_content(content, tmp_path / "report", ("tex",))
    assert written and {p.suffix for p in written} == {".tex"}
    assert sorted(p.name for p in (tmp_path / "report").iterdir()) == sorted(p.name for p in written)  # no .partial


def test_build_report_refuses_what_write_report_refuses(run_a, store):
    with pytest.raises(WorkbenchError, match="no runs"):
        build_report(store, [], context=make_context())
    with pytest.raises(WorkbenchError):
        build_report(store, ["ffffffff"], context=make_context())


def test_annotation_does_not_import_reports():
    """reports reads annotations (Table 6 per label), so annotation must not import reports back:
    the run names both use live below both (workbench.metrics.run_names)."""
    import workbench.annotation
    for path in Path(workbench.annotation.__path__[0]).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else \
                [a.name for a in node.names] if isinstance(node, ast.Import) else []
            assert not any(n.startswith("workbench.reports") for n in names), f"{path.name} imports {names}"
