"""`workbench report`'s files: a ReportContent (workbench.reports.content) written in each format.

`report_files` lists every file a report can hold, in the order they are written (headline.png
first), each with a function that renders its content from the record; a file's format is its
name's suffix. What a file holds picks its writer (`WRITERS`): text, a CSV table, or a figure.
Each file is written to a temporary name and renamed, so a failed report leaves no
half-written file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import pandas as pd

from workbench.infra.errors import WorkbenchError
from workbench.reports.content import ReportContent, build_report
from workbench.reports.figures import ReportFigure, save_png

FORMATS = ("md", "tex", "csv", "png")
LEGEND_NOTE = "Runs and their signatures: run_legend.md."


@dataclass(frozen=True)
class Indexed:
    """A CSV table written with its index (metrics.csv: run ids; Table 6: language, run, label)."""
    frame: pd.DataFrame


@dataclass(frozen=True)
class ReportFile:
    """One file of a report: its name and how to render it (text, a table, Indexed, a
    ReportFigure, or None where this report has no such file)."""
    name: str
    render: Callable[[], object]

    @property
    def format(self) -> str:
        return Path(self.name).suffix[1:]


def _partial_name(path: Path) -> Path:
    """The temporary name beside path ("table2.partial.csv"): the suffix stays last for the tools
    that read a format from it."""
    return path.with_name(path.stem + ".partial" + path.suffix)


def _write_text(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


def _write_csv(path: Path, frame: pd.DataFrame, index: bool = False) -> None:
    frame.to_csv(path, index=index)


# By the rendered value's type; each writer takes values of its own type only.
WRITERS: dict[type, Callable[[Path, Any], None]] = {
    str: _write_text,
    pd.DataFrame: _write_csv,
    Indexed: lambda path, value: _write_csv(path, value.frame, index=True),
    ReportFigure: lambda path, figure: save_png(figure, str(path)),
}


def write_file(path: Path, value) -> Path:
    """value written to path through a temporary name, by the writer for its type."""
    tmp = _partial_name(path)
    WRITERS[type(value)](tmp, value)
    tmp.replace(path)
    return path


def report_files(content: ReportContent, formats: Sequence[str]) -> list[ReportFile]:
    """Every file a report can hold, in the order written (see the package's docstring)."""
    from workbench.reports import label_tables, privacy, run_legend, tables
    from workbench.reports.report_page import report_markdown
    c, table, figures = content, content.table, content.figures()
    files = [ReportFile("headline.png", lambda: figures["headline"]),
             ReportFile("run_legend.md", lambda: "# Runs\n\n" + run_legend.legend_markdown(table)),
             ReportFile("run_legend.tex", lambda: run_legend.legend_latex(table)),
             ReportFile("run_legend.csv", lambda: run_legend.legend_frame(table))]
    for spec in tables.TABLES:  # partial, not lambda: a lambda here would see the last spec only
        files += [ReportFile(f"{spec.name}.md", partial(tables.to_markdown, table, spec, c.described,
                                                              legend_note=LEGEND_NOTE)),
                  ReportFile(f"{spec.name}.tex", partial(tables.to_latex, table, spec, c.described)),
                  ReportFile(f"{spec.name}.csv", partial(tables.to_csv_frame, table, spec))]
    name = privacy.TABLE.name
    files += [
        # md and tex: the columns of the attackers run (privacy.table_spec); the CSV keeps every column.
        ReportFile(f"{name}.md", lambda: tables.to_markdown(c.private, privacy.table_spec(c.measures),
                                                            c.privacy_caption, legend_note=LEGEND_NOTE)),
        ReportFile(f"{name}.tex", lambda: tables.to_latex(c.private, privacy.table_spec(c.measures),
                                                          c.privacy_caption)),
        ReportFile(f"{name}.csv", lambda: tables.to_csv_frame(c.private, privacy.TABLE)),
        ReportFile("privacy_utility.csv", lambda: c.points),
        ReportFile("privacy_utility.png", lambda: figures.get("privacy_utility")),
        ReportFile("per_label.md", lambda: "# Per-label results\n\n" + label_tables.to_markdown(table, c.by_label)),
        ReportFile("per_label.tex", lambda: label_tables.to_latex(table, c.by_label)),
        ReportFile("per_label.csv", lambda: label_tables.to_csv_frame(table, c.by_label)),
        ReportFile("table6_by_label.csv", lambda: None if c.table6_by_label is None else Indexed(c.table6_by_label)),
        ReportFile("per_label.png", lambda: figures["per_label"]),
        ReportFile("agreement.png", lambda: figures.get("agreement")),
        ReportFile("table6_by_label.png", lambda: figures.get("table6_by_label")),
        ReportFile("review_changes.csv", lambda: None if c.reviews is None else c.reviews.changes),
        ReportFile("review_metrics.csv", lambda: None if c.reviews is None else c.reviews.metrics),
        ReportFile("metrics.csv", lambda: Indexed(table)),
        ReportFile("metric_definitions.csv", lambda: c.definitions),
        ReportFile("figure1_unique_ratio.csv", lambda: c.ratios),
        ReportFile("figure1_unique_ratio.png", lambda: figures["figure1_unique_ratio"]),
        ReportFile("metrics_comparison.png", lambda: figures["metrics_comparison"]),
        ReportFile("report.md", lambda: report_markdown(c, formats))]
    return files


def write_report(store, run_ids: Sequence[str], out_dir: str | Path, formats: Iterable[str] = FORMATS, *,
                 config=None, context=None, allow_incomplete: bool = False, k: int | None = None,
                 utility: Sequence[str] | None = None, families: Sequence[str] | None = None) -> list[Path]:
    """Compute the metrics for the runs (build_report) and write tables and figures in the
    formats asked for (any of md, tex, csv, png); returns the paths written. The arguments
    are build_report's (families: every family unless named)."""
    formats = tuple(formats)
    unknown = sorted(set(formats) - set(FORMATS))
    if unknown:
        raise WorkbenchError(f"unknown report format(s) {', '.join(unknown)} (known: {', '.join(FORMATS)})")
    # The folder is made before the minutes of computing, so one that cannot be made (a typo, no
    # permission) fails at once; if the report then fails, the folders made for it go again.
    made = make_folder(Path(out_dir))
    try:
        content = build_report(store, run_ids, config=config, context=context, allow_incomplete=allow_incomplete,
                               k=k, utility=utility, families=families)
    except BaseException:
        for folder in made:  # deepest first; a folder something else wrote into stays
            if not any(folder.iterdir()):
                folder.rmdir()
        raise
    return write_content(content, out_dir, formats)


def make_folder(folder: Path) -> list[Path]:
    """Makes folder and its missing parents; returns those it made, deepest first."""
    missing = [p for p in (folder, *folder.parents) if not p.exists()]
    folder.mkdir(parents=True, exist_ok=True)
    return missing


def write_content(content: ReportContent, out_dir: str | Path, formats: Sequence[str] = FORMATS) -> list[Path]:
    """A built report's files in out_dir (created if missing); returns the paths written."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for file in report_files(content, formats):
        if file.format in formats and (value := file.render()) is not None:
            written.append(write_file(out / file.name, value))
    return written
