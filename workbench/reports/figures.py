"""The report's figures: which ones a report has, how each is drawn, and one writer for PNG.

Each figure is a function that returns a matplotlib Figure, one module per kind:
    headline, metrics_comparison   workbench.reports.bar_figures (headline_figure, comparison_figure)
    figure1_unique_ratio           workbench.reports.figure1 (003 Figure 1)
    per_label                      workbench.reports.label_heatmaps
    agreement                      workbench.reports.agreement_figure (only when the agreement family was computed)
    privacy_utility                workbench.reports.privacy_figure
    table6_by_label                workbench.annotation.results.figure2_by_label
`report_figures` pairs each with the content it draws and the resolution its file is written
at; `save_png` draws one to a file or a buffer and closes it, so `workbench report` and the
dashboard get the same bytes and no caller handles a Figure's lifetime.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import IO

from workbench.reports.figure_style import pyplot


@dataclass(frozen=True)
class ReportFigure:
    """One figure of a report: draw() returns a new matplotlib Figure; the file is name + ".png"."""
    name: str
    draw: Callable
    dpi: int
    tight: bool = False  # crop to what is drawn (the privacy figure's key sits outside its panels)


def report_figures(content) -> dict[str, ReportFigure]:
    """File stem -> ReportFigure for a ReportContent, in the order the report writes them (the
    headline first); the privacy–utility figure only with a stored TRIR, Table 6 only with annotations."""
    from workbench.reports import agreement_figure, bar_figures, figure1, label_heatmaps, privacy_figure
    keys = content.measures.attrs.get("attack_keys")
    figures = [
        ReportFigure("headline", partial(bar_figures.headline_figure, content.private), 120),
        ReportFigure("privacy_utility", partial(privacy_figure.privacy_utility_fig, content.points, keys), 120,
                     tight=True) if len(content.points) else None,
        ReportFigure("per_label", partial(label_heatmaps.label_heatmaps_figure, content.table, content.by_label), 120),
        ReportFigure("agreement", partial(agreement_figure.agreement_figure, content.table), 120)
        if agreement_figure.has_agreement(content.table) else None,
        ReportFigure("table6_by_label", partial(_figure2_by_label, content.table6_by_label), 120)
        if content.table6_by_label is not None else None,
        ReportFigure("figure1_unique_ratio", partial(figure1.figure1_figure, content.ratios, content.table), 130),
        ReportFigure("metrics_comparison", partial(bar_figures.comparison_figure, content.table), 110),
    ]
    return {f.name: f for f in figures if f is not None}


def _figure2_by_label(rates):
    from workbench.annotation.results import figure2_by_label
    from workbench.annotation.tagset import load_tagset
    return figure2_by_label(rates, load_tagset())


def save_png(figure: ReportFigure, target: str | IO[bytes]) -> None:
    """Draw the figure and write it as PNG to target (a path or a binary file), then close it."""
    plt = pyplot()
    fig = figure.draw()
    try:
        fig.savefig(target, format="png", dpi=figure.dpi, **({"bbox_inches": "tight"} if figure.tight else {}))
    finally:
        plt.close(fig)


def png_bytes(figure: ReportFigure) -> bytes:
    """The figure as PNG bytes, as its file holds them (for the dashboard, which shows them)."""
    buffer = io.BytesIO()
    save_png(figure, buffer)
    return buffer.getvalue()
