"""report.md: every table and figure of a report on one Markdown page.

The figures are referenced by their file names, so only where the report writes PNG
("png" in its formats); the tables are written inline.
"""

from __future__ import annotations

from workbench.reports.conclusions import conclusions_markdown
from workbench.reports.content import ReportContent


def report_markdown(content: ReportContent, formats) -> str:
    """The whole page: headline, runs, tables, privacy, figures, then the per-label part."""
    return _overview(content, formats) + _label_section(content, formats)


def _overview(content: ReportContent, formats) -> str:
    from workbench.metrics.metric_frame import stored_runs
    from workbench.reports import run_legend, tables
    from workbench.reports.privacy import TABLE, headline_text, table_spec
    table, described = content.table, content.described
    runs = stored_runs(table)  # a mixed-language run has a row per language
    parts = ["# Pseudonym Workbench report", "",
             f"{len(runs)} run{'' if len(runs) == 1 else 's'}. Metric models: `{described}`.", "",
             *_first_report_note(content.left_out), conclusions_markdown(content.private)]
    if "png" in formats:  # the headline first, before the tables and the detailed panels
        parts += ["## Headline", "", "UPOS accuracy, unique forms per document, word similarity, the headline TRIR "
                  "and the FAILED share, one bar per run in its generator's colour (the same colour in every "
                  "figure).", "",
                  "![Headline](headline.png)", ""]
    parts += [
             # The signatures once, here; the tables below name runs by these names.
             "## Runs", "", "Each run's name in the tables and figures, its id (`workbench show ID`) and its "
             "signature (everything that makes it reproducible).", "", run_legend.legend_markdown(table)]
    for spec in tables.TABLES:
        parts += [f"## {spec.title}", "", tables.to_markdown(table, spec, described)]
    parts += [f"## {TABLE.title}", "", f"Headline TRIR (the strongest attack: a document counts as re-identified "
              f"when any attacker run re-identifies it): {headline_text(content.measures)}.", "",
              tables.to_markdown(content.private, table_spec(content.measures), content.privacy_caption)]
    if content.reviews is not None:  # only a report with a reviewed run
        from workbench.reports.review_changes import review_markdown
        parts += ["## Review: parent and revision", "", review_markdown(content.reviews)]
    if "png" in formats:
        parts += ["## Figures", "", "![Figure 1](figure1_unique_ratio.png)", "",
                  "![Metrics per run](metrics_comparison.png)", "", left_out_text(table), ""]
        parts += ["![Privacy against utility](privacy_utility.png)", ""] if len(content.points) else [
            "No privacy–utility figure: no run has a stored TRIR (`workbench privacy reid RUN...`).", ""]
        if "agreement" in content.figures():
            parts += ["![Agreement with the original, by language](agreement.png)", ""]
    return "\n".join(parts)


def _first_report_note(left_out: tuple[str, ...]) -> list[str]:
    """A report of some families only says so first, and names the rest (empty for a full report)."""
    if not left_out:
        return []
    from workbench.metrics import FAMILIES
    computed = [f for f in FAMILIES if f not in left_out]
    return [f"**A first report**: computed here are the metric families {', '.join(computed)} and the stored "
            f"privacy results. Not computed, so their columns read –: {', '.join(left_out)}. `workbench report` "
            "over the same runs computes every family.", ""]


def left_out_text(table) -> str:
    """The line under metrics_comparison.png: the panels left out and why."""
    from workbench.metrics import metric_infos
    from workbench.reports.bar_figures import (
        ONE_UNIT_NOTE,
        bar_metrics,
        left_out_by_corpus,
        left_out_note,
        uninformative,
    )
    metrics, infos = bar_metrics(table), metric_infos()
    left_out = uninformative(table, metrics)
    by_corpus = left_out_by_corpus(table, [m for m in metrics if m not in left_out])
    notes = [n for n in [left_out_note(left_out, infos),
                         *(left_out_note(same, infos, where=f" in {c}") for c, same in by_corpus.items())] if n]
    if not notes:
        return f"Every metric with a value has a panel. {ONE_UNIT_NOTE}"
    return ("; ".join(notes) + ". A panel of equal bars tells no run from another, so these have none; the tables "
            f"give them. {ONE_UNIT_NOTE}")


def _label_section(content: ReportContent, formats) -> str:
    """The per-label part: the tables, the heatmaps, Table 6 per label."""
    from workbench.annotation.results import table6_by_label_markdown
    from workbench.reports import label_tables
    parts = ["", "## Per-label results", "",
             "Every span-level metric per entity label (docs/metrics.md, \"Per label\"): one table per metric, "
             "a row per run, a column per label of the corpus, `all` the run's value; per_label.csv has every "
             "value (and the raw cosines).", "", label_tables.to_markdown(content.table, content.by_label)]
    if "png" in formats:
        parts += ["![Metrics per label](per_label.png)", ""]
    parts += ["### Error tags per label (003 Table 6)", ""]
    if content.table6_by_label is None:
        parts += ["No annotated pseudonyms in these runs (dashboard Annotate page, `workbench annotations import`).",
                  ""]
    else:
        parts += ["Relative frequency of each tag among the annotated pseudonyms of a label (each row sums to 1; "
                  "majority tag where several annotators tagged a pseudonym).", "",
                  table6_by_label_markdown(content.table6_by_label)]
        if "png" in formats:
            parts += ["![Error tags per label](table6_by_label.png)", ""]
    return "\n".join(parts)
