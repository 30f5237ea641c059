"""Reports: tables (Markdown, LaTeX, CSV) and PNG figures for chosen runs.

    from workbench.reports import write_report
    written = write_report(store, ["832a7ed4", "2d97c2f2"], "out/report")

writes into out_dir (headline.png first):
    headline.png                    the compact headline figure: UPOS accuracy, unique forms per
                                    document, word similarity, TRIR, FAILED share (figures.headline)
    table2_diversity.{md,tex,csv}   003 Table 2 (with Original rows per corpus)
    table3_quality.{md,tex,csv}     003 Table 3
    table4_rouge.{md,tex,csv}       003 Table 4
    table5_beyond.{md,tex,csv}      uniqueness, multi-word, FAILED, s/span, classifier, entities, TPS
    table_privacy.{md,tex,csv}      TRIR and rank <= k per re-identification attacker, inference
                                    disclosure, PII overlap (stored attack results; reports.privacy)
    privacy_utility.csv/.png        utility (TPS, word similarity) against TRIR per corpus, Pareto
                                    front marked (the PNG when some run has a stored TRIR)
    run_legend.{md,tex,csv}         every run's name, id and signature (the csv: every option too);
                                    tables name runs by name and refer here for signatures
    metrics.csv                     every metric, raw, one row per run (+ Original rows)
    metric_definitions.csv          name, range, direction, source, definition
    figure1_unique_ratio.png/.csv   003 Figure 1 and its per-document data
    per_label.{md,tex,csv,png}      every span-level metric per entity label (metrics.per_label):
                                    a table per metric, runs × labels; heatmaps per corpus
    table6_by_label.{csv,png}       003 Table 6 / Figure 2's error tags per label, where the runs were annotated
    metrics_comparison.png          one bar chart per metric (a metric with the same value for every
                                    run gets none; report.md names it)
    report.md                       all tables and figures on one page
Each file is written to a temporary name and renamed, so a failed report leaves no
half-written file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Sequence

import pandas as pd

from workbench.errors import WorkbenchError

FORMATS = ("md", "tex", "csv", "png")


def _write_text(path: Path, text: str) -> Path:
    tmp = path.with_name(path.name + ".partial")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    return path


def _write_csv(path: Path, frame: pd.DataFrame, index: bool = False) -> Path:
    tmp = path.with_name(path.name + ".partial")
    frame.to_csv(tmp, index=index)
    tmp.replace(path)
    return path


def _write_png(path: Path, draw) -> Path:
    tmp = path.with_name(path.stem + ".partial.png")  # matplotlib picks the format from the suffix
    draw(tmp)
    tmp.replace(path)
    return path


def write_report(store, run_ids: Sequence[str], out_dir: str | Path, formats: Iterable[str] = FORMATS, *,
                 config=None, context=None, allow_incomplete: bool = False, k: int = 10) -> list[Path]:
    """Compute every metric for the runs and write tables and figures; returns the paths written.

    store: a RunStore; run_ids: ids or unique prefixes; formats: any of md, tex, csv, png;
    config: a workbench.metrics.MetricConfig (default: the offline defaults), or pass a
    ready MetricContext as context. k: the rank of the privacy table's "rank <= k". The privacy
    measures are read from what `workbench privacy reid` / `infer` stored; nothing is attacked.
    """
    from workbench.metrics import MetricContext, compute_metrics, metric_infos
    from workbench.metrics.diversity import figure1_ratios
    from workbench.metrics.metric_frame import metric_frame
    from workbench.metrics.per_label import label_metrics
    from workbench.reports import figures, label_tables, privacy, run_legend, tables

    formats = tuple(formats)
    unknown = sorted(set(formats) - set(FORMATS))
    if unknown:
        raise WorkbenchError(f"unknown report format(s) {', '.join(unknown)} (known: {', '.join(FORMATS)})")
    if not run_ids:
        raise WorkbenchError("no runs to report: give at least one run id")
    records = [store.resolve_run(r) for r in run_ids]
    unfinished = [r.run_id for r in records if r.status != "complete"]
    if unfinished and not allow_incomplete:
        raise WorkbenchError(f"run(s) {', '.join(unfinished)} are not complete; finish them with the same "
                             "`workbench generate` command, or report them anyway with --allow-incomplete")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)

    frame = metric_frame(store, list(dict.fromkeys(r.run_id for r in records)))
    if context is None:
        from workbench.metrics import MetricConfig
        context = MetricContext(config or MetricConfig())
    table = compute_metrics(frame, context)
    described = context.config.describe()
    written: list[Path] = []
    # The privacy measures first: the headline figure, written before anything else, shows TRIR.
    measures = privacy.privacy_measures(store, list(dict.fromkeys(r.run_id for r in records)), k=k)
    private = privacy.with_privacy(table, measures)
    if "png" in formats:
        written.append(_write_png(out / "headline.png", lambda p: figures.headline(private, p)))

    note = "Runs and their signatures: run_legend.md."
    if "md" in formats:
        written.append(_write_text(out / "run_legend.md", "# Runs\n\n" + run_legend.legend_markdown(table)))
    if "tex" in formats:
        written.append(_write_text(out / "run_legend.tex", run_legend.legend_latex(table)))
    if "csv" in formats:
        written.append(_write_csv(out / "run_legend.csv", run_legend.legend_frame(table)))
    for spec in tables.TABLES:
        if "md" in formats:
            written.append(_write_text(out / f"{spec.name}.md", tables.to_markdown(table, spec, described,
                                                                                    legend_note=note)))
        if "tex" in formats:
            written.append(_write_text(out / f"{spec.name}.tex", tables.to_latex(table, spec, described)))
        if "csv" in formats:
            written.append(_write_csv(out / f"{spec.name}.csv", tables.to_csv_frame(table, spec)))
    attacks = f"{described}|{privacy.attacks_caption(measures)}"
    if "md" in formats:
        written.append(_write_text(out / f"{privacy.TABLE.name}.md", tables.to_markdown(private, privacy.TABLE,
                                                                                          attacks, legend_note=note)))
    if "tex" in formats:
        written.append(_write_text(out / f"{privacy.TABLE.name}.tex", tables.to_latex(private, privacy.TABLE, attacks)))
    points = privacy.privacy_utility_points(private)
    if "csv" in formats:
        written.append(_write_csv(out / f"{privacy.TABLE.name}.csv", tables.to_csv_frame(private, privacy.TABLE)))
        written.append(_write_csv(out / "privacy_utility.csv", points))
    if "png" in formats and len(points):
        written.append(_write_png(out / "privacy_utility.png", lambda p: privacy.privacy_utility_figure(
            points, p, measures.attrs.get("attack_keys"))))
    # Per entity label: the per-span values compute_metrics kept on the context, regrouped.
    by_label = label_metrics(frame, context)
    label_table6 = table6_by_label_of(store, table)
    if "md" in formats:
        written.append(_write_text(out / "per_label.md", "# Per-label results\n\n"
                                   + label_tables.to_markdown(table, by_label)))
    if "tex" in formats:
        written.append(_write_text(out / "per_label.tex", label_tables.to_latex(table, by_label)))
    if "csv" in formats:
        written.append(_write_csv(out / "per_label.csv", label_tables.to_csv_frame(table, by_label)))
        if label_table6 is not None:
            written.append(_write_csv(out / "table6_by_label.csv", label_table6, index=True))
    if "png" in formats:
        written.append(_write_png(out / "per_label.png", lambda p: figures.label_heatmaps(table, by_label, p)))
        if label_table6 is not None:
            written.append(_write_png(out / "table6_by_label.png", lambda p: _figure2_by_label(label_table6, p)))
    ratios = figure1_ratios(frame)
    if "csv" in formats:
        written.append(_write_csv(out / "metrics.csv", table, index=True))
        definitions = pd.DataFrame([{"metric": m.name, "label": m.label, "family": m.family, "range": m.range_text,
                                     "better": m.better, "source": m.source, "definition": m.description}
                                    for m in [*metric_infos().values(), *privacy.INFOS.values()]])
        written.append(_write_csv(out / "metric_definitions.csv", definitions))
        written.append(_write_csv(out / "figure1_unique_ratio.csv", ratios))
    if "png" in formats:
        written.append(_write_png(out / "figure1_unique_ratio.png", lambda p: figures.figure1(ratios, table, p)))
        written.append(_write_png(out / "metrics_comparison.png", lambda p: figures.metric_bars(table, p)))
    if "md" in formats:
        written.append(_write_text(out / "report.md", _overview(table, described, formats, private, attacks,
                                                                len(points) > 0)
                                   + _label_section(table, by_label, label_table6, formats)))
    return written


def table6_by_label_of(store, table: pd.DataFrame) -> pd.DataFrame | None:
    """003 Table 6 per entity label over the annotations of the report's runs (None: none),
    runs named as in the report's tables."""
    from workbench.annotation.results import annotation_frame, item_tags, table6_by_label
    from workbench.annotation.storage import AnnotationStore
    from workbench.metrics.metric_frame import run_rows
    from workbench.reports.run_names import run_names
    annotations = AnnotationStore(store)  # over the report's own connection: nothing to close
    # A run over a mixed-language corpus has a row per language ("<run_id>@sv"); its
    # annotations are stored under the run, and Table 6 splits by language itself.
    runs = run_rows(table)
    names = dict(zip(table.loc[runs, "stored_run"], run_names(table)[runs]))
    frame = annotation_frame(annotations, list(names))
    if frame.empty:
        return None
    items = item_tags(frame, annotations.tagset)
    items["system"] = [names.get(r, s) for r, s in zip(items["run_id"], items["system"])]
    return table6_by_label(items, annotations.tagset)


def _figure2_by_label(rates: pd.DataFrame, path: Path) -> None:
    import matplotlib.pyplot as plt

    from workbench.annotation.results import figure2_by_label
    from workbench.annotation.tagset import load_tagset
    plt.close(figure2_by_label(rates, load_tagset(), path))


def _label_section(table: pd.DataFrame, by_label: pd.DataFrame, label_table6: pd.DataFrame | None,
                   formats) -> str:
    """report.md's per-label part: the tables, the heatmaps, Table 6 per label."""
    from workbench.annotation.results import table6_by_label_markdown
    from workbench.reports import label_tables
    parts = ["", "## Per-label results", "",
             "Every span-level metric per entity label (docs/metrics.md, \"Per label\"): one table per metric, "
             "a row per run, a column per label of the corpus, `all` the run's value; per_label.csv has every "
             "value (and the raw cosines).", "", label_tables.to_markdown(table, by_label)]
    if "png" in formats:
        parts += ["![Metrics per label](per_label.png)", ""]
    parts += ["### Error tags per label (003 Table 6)", ""]
    if label_table6 is None:
        parts += ["No annotated pseudonyms in these runs (dashboard Annotate page, `workbench annotations import`).",
                  ""]
    else:
        parts += ["Relative frequency of each tag among the annotated pseudonyms of a label (each row sums to 1; "
                  "majority tag where several annotators tagged a pseudonym).", "",
                  table6_by_label_markdown(label_table6)]
        if "png" in formats:
            parts += ["![Error tags per label](table6_by_label.png)", ""]
    return "\n".join(parts)


def _overview(table: pd.DataFrame, described: str, formats, private: pd.DataFrame, attacks: str,
              figure: bool) -> str:
    from workbench.metrics.metric_frame import stored_runs
    from workbench.reports import run_legend, tables
    runs = stored_runs(table)  # a mixed-language run has a row per language
    parts = ["# Pseudonym Workbench report", "",
             f"{len(runs)} run{'' if len(runs) == 1 else 's'}. Metric models: `{described}`.", ""]
    if "png" in formats:  # the headline first, before the tables and the detailed panels
        parts += ["## Headline", "", "UPOS accuracy, unique forms per document, word similarity, TRIR and the "
                  "FAILED share, one bar per run in its generator's colour (the same colour in every figure).", "",
                  "![Headline](headline.png)", ""]
    parts += [
             # The signatures once, here; the tables below name runs by these names.
             "## Runs", "", "Each run's name in the tables and figures, its id (`workbench show ID`) and its "
             "signature (everything that makes it reproducible).", "", run_legend.legend_markdown(table)]
    from workbench.reports.privacy import TABLE
    for spec in tables.TABLES:
        parts += [f"## {spec.title}", "", tables.to_markdown(table, spec, described)]
    parts += [f"## {TABLE.title}", "", tables.to_markdown(private, TABLE, attacks)]
    if "png" in formats:
        parts += ["## Figures", "", "![Figure 1](figure1_unique_ratio.png)", "",
                  "![Metrics per run](metrics_comparison.png)", "", _left_out_text(table), ""]
        parts += ["![Privacy against utility](privacy_utility.png)", ""] if figure else [
            "No privacy–utility figure: no run has a stored TRIR (`workbench privacy reid RUN...`).", ""]
    return "\n".join(parts)


def _left_out_text(table: pd.DataFrame) -> str:
    """report.md's line under metrics_comparison.png: the panels left out and why."""
    from workbench.reports import figures
    from workbench.metrics import metric_infos
    left_out = figures.uninformative(table, figures.bar_metrics(table))
    if not left_out:
        return "Every metric with a value has a panel."
    return (figures.left_out_note(left_out, metric_infos())
            + ". A panel of equal bars tells no run from another, so these have none; the tables give them.")
