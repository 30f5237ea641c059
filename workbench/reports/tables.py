"""Report tables shaped like 003 Tables 2, 3 and 4, plus one for the measures beyond them.

One row per run (Original rows per corpus where the paper has them), named by its short name
(workbench.metrics.run_names) with its short id, and a column for each option that varies
between the table's runs (leak guard, window, seed …; only those). The signatures are not
repeated under each table: the run legend (workbench.reports.run_legend: report.md's "Runs"
section and run_legend.{md,tex,csv}) gives each name its signature once. Which metrics go in
which table is workbench.reports.table_specs. Rendered as Markdown, LaTeX
(booktabs) and CSV; the CSV carries raw values, run ids, signatures and every option.
"""

from __future__ import annotations

import itertools
import math

import pandas as pd

from workbench.metrics import metric_infos
from workbench.metrics.best_runs import MARK, caption_note
from workbench.metrics.clustering import spread_note as nmi_spread_note
from workbench.metrics.intervals import HIGH, LOW
from workbench.metrics.metric_frame import is_original, run_rows
from workbench.metrics.run_names import all_options, option_text, run_names, varying_options
from workbench.metrics.seed_spread import CAPTION as SEEDS_CAPTION
from workbench.metrics.seed_spread import SEEDS_MEAN, SEEDS_N, SEEDS_SD, seed_text
from workbench.metrics.similarity import discriminates_by_run, word_discrimination_note
from workbench.reports.labels import mode_label, sees_label, short_id, system_label
from workbench.reports.table_specs import LABEL_HEADERS, TABLES, Column, TableSpec
from workbench.reports.tex import tex_escape
from workbench.upos.label_upos import CONTRADICTION_NOTE_ABOVE

__all__ = ["TABLES", "Column", "TableSpec", "caption", "cells", "flat_cells", "format_cell", "label_headers",
           "metric_arrow", "ordered_rows", "table_notes", "tagger_note", "to_csv_frame", "to_latex", "to_markdown"]


BRACKETS, PLUS_MINUS = "brackets", "plus-minus"  # how a cell shows its interval: Markdown, dashboard / LaTeX


def ordered_rows(table: pd.DataFrame, originals: bool) -> pd.DataFrame:
    """The rows a table shows, grouped by corpus (as the table names it: "pgv-pii [sv]" is a
    corpus of its own), Original first where `originals`, then the runs in the order asked for."""
    runs = set(run_rows(table))
    keep = [i for i in table.index if originals or i in runs]
    order = {c: n for n, c in enumerate(dict.fromkeys(table.loc[keep, "corpus"]))}
    keep.sort(key=lambda i: (order[table.at[i, "corpus"]], i in runs))
    return table.loc[keep]


def format_cell(value, column: Column) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{float(value) * column.scale:.{column.digits}f}"


def metric_cell(row: pd.Series, column: Column, style: str = BRACKETS) -> str:
    """The figure with its 95 % interval where the table has one (`0.612 [0.581, 0.640]`, or with
    style PLUS_MINUS half its width, `0.612 ±0.030`, where space is short: LaTeX) and its mark
    (workbench.metrics.best_runs: * best of its corpus, † not significantly different from it)."""
    text = format_cell(row.get(column.metric), column)
    low, high = row.get(column.metric + LOW), row.get(column.metric + HIGH)
    if text != "–" and _is_number(low) and _is_number(high):
        scale, digits = column.scale, column.digits
        if style == PLUS_MINUS:
            text += f" ±{(high - low) / 2 * scale:.{digits}f}"
        else:
            text += f" [{low * scale:.{digits}f}, {high * scale:.{digits}f}]"
    mark = row.get(column.metric + MARK)
    if isinstance(mark, str) and text != "–":
        text += mark
    seeds_mean = row.get(column.metric + SEEDS_MEAN)  # runs that differ only in seed: mean ± sd across them
    if text != "–" and _is_number(seeds_mean):
        text += " · " + seed_text(seeds_mean, row.get(column.metric + SEEDS_SD), int(row.get(column.metric + SEEDS_N)),
                                  column.scale, column.digits)
    coverage = row.get(column.metric + COVERAGE)  # a figure over part of the run: what it covers
    return f"{text} ({coverage})" if isinstance(coverage, str) and coverage and text != "–" else text


# `<metric>_coverage`: a figure computed over part of a run says over what ("230 of 1,802 spans",
# reports.privacy: an inference attack that has not reached every span yet).
COVERAGE = "_coverage"


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not math.isnan(value)


def uncertainty_note(table: pd.DataFrame, spec: TableSpec) -> str:
    """The caption's sentence on intervals and marks, where the table shows any."""
    shown = [c.metric for c in spec.columns]
    notes = []
    if any(m + LOW in table for m in shown):
        notes.append("Beside a figure that is a mean over documents or spans: its 95 % bootstrap interval (in "
                     "brackets; ± half its width in LaTeX), 1,000 resamples of documents, a span resampled "
                     "with its document.")
    if any(m + MARK in table for m in shown):
        notes.append(caption_note())
    if any(m + SEEDS_MEAN in table for m in shown):
        notes.append(SEEDS_CAPTION)
    return " ".join(notes)


def metric_arrow(metric: str) -> str:
    info = metric_infos().get(metric)
    return info.arrow if info else ""


def label_headers(table: pd.DataFrame, spec: TableSpec) -> list[str]:
    """The columns before the metrics: Corpus, Run (the name), Id, then the varying options."""
    return list(LABEL_HEADERS) + [o.header for o in varying_options(ordered_rows(table, spec.originals))]


def cells(table: pd.DataFrame, spec: TableSpec, style: str = BRACKETS) -> tuple[list[str], list[list[str]]]:
    """Headers and formatted rows (Corpus, Run, Id, varying options…, metrics…)."""
    rows_of = ordered_rows(table, spec.originals)
    names = run_names(table)  # over the whole table, so every table and figure names a run alike
    options = varying_options(rows_of)
    headers = (list(LABEL_HEADERS) + [o.header for o in options]
               + [c.header + metric_arrow(c.metric) for c in spec.columns])
    rows = []
    for run_id, row in rows_of.iterrows():
        rows.append([str(row["corpus"]), names[run_id], short_id(row)]
                    + ["" if is_original(row) else option_text(row, o.column) for o in options]
                    + [metric_cell(row, c, style) for c in spec.columns])
    return headers, rows


def flat_cells(table: pd.DataFrame, spec: TableSpec) -> tuple[list[str], list[list[str]]]:
    """cells() with each spanning group header as a prefix ("Similarity raw: word"), for the
    formats that have no colspan (Markdown, the dashboard): the headers are then unique."""
    headers, rows = cells(table, spec)
    groups = [""] * (len(headers) - len(spec.columns)) + [c.group for c in spec.columns]
    return [f"{g}: {h}" if g else h for g, h in zip(groups, headers)], rows


def tagger_note(table: pd.DataFrame, spec: TableSpec) -> str:
    """A sentence for the caption of a table with UPOS accuracy where, for some corpus, the
    tagger's UPOS of more than CONTRADICTION_NOTE_ABOVE of the originals contradicts their
    labels (workbench/upos/label_upos.py); "" otherwise."""
    column = "upos_tagger_contradiction"
    if column not in table or "upos_accuracy" not in [c.metric for c in spec.columns]:
        return ""
    rows = ordered_rows(table, spec.originals)
    notes = [name_agreement_note(rows)]
    worst = rows[column].astype(float).groupby(rows["corpus"].astype(str), sort=False).max()
    high = worst[worst > CONTRADICTION_NOTE_ABOVE]
    if not high.empty:
        where = ", ".join(f"{corpus} {rate * 100:.1f} %" for corpus, rate in high.items())
        notes.append(f"The tagger's UPOS contradicts the original's label for more than "
                     f"{CONTRADICTION_NOTE_ABOVE * 100:g} % of the spans ({where}; column tagger contra.): "
                     "there UPOS accuracy partly rewards agreeing with the tagger's errors.")
    return " ".join(n for n in notes if n)


def name_agreement_note(rows: pd.DataFrame) -> str:
    """The tagger's agreement with the name labels per corpus and language (upos_tagger_name_propn),
    and the rule UPOS accuracy follows for names; "" where no corpus has a name span."""
    column = "upos_tagger_name_propn"
    if column not in rows:
        return ""
    shares = rows[column].astype(float).groupby(rows["corpus"].astype(str), sort=False).max().dropna()
    if shares.empty:
        return ""
    where = ", ".join(f"{corpus} {share * 100:.1f} %" for corpus, share in shares.items())
    return (f"The tagger reads personal names as proper nouns (PROPN) for {where} of the name spans; "
            "a name span counts as PROPN whatever it reads, in UPOS accuracy and in the UPOS filter (the name rule).")


def table_notes(table: pd.DataFrame, spec: TableSpec) -> str:
    """The caption's notes on the table's own figures (tagger contradictions, similarity that
    does not discriminate), "" where there is none."""
    notes = [tagger_note(table, spec), uncertainty_note(table, spec)]
    if "similarity_word" in [c.metric for c in spec.columns]:
        notes.append(word_discrimination_note(ordered_rows(table, spec.originals)))
    if "nmi" in [c.metric for c in spec.columns]:  # clusterings that disagree (issue 40)
        notes.append(nmi_spread_note(ordered_rows(table, spec.originals), run_names(table)))
    return " ".join(n for n in notes if n)


def caption(table: pd.DataFrame, spec: TableSpec, metric_config: str) -> str:
    """The caption with every run's signature (the dashboard's expander; files use the legend)."""
    names = run_names(table)
    runs = "; ".join(f"[{names[i]} · {short_id(row)}] {row['signature']}"
                     for i, row in ordered_rows(table, spec.originals).iterrows() if not is_original(row))
    note = table_notes(table, spec)
    return f"{spec.title}. {note + ' ' if note else ''}Metrics: {metric_config}. Runs: {runs}"


def to_markdown(table: pd.DataFrame, spec: TableSpec, metric_config: str, *, legend_note: str = "") -> str:
    """The table; its caption names the metric models, and `legend_note` where the run legend
    is (report.md: above; a table file on its own: run_legend.md)."""
    headers, rows = flat_cells(table, spec)
    labels = len(headers) - len(spec.columns)
    lines = ["| " + " | ".join(headers) + " |",
             "|" + "|".join(["---"] * labels + ["---:"] * len(spec.columns)) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    note = table_notes(table, spec)
    lines += ["", f"*Table: {spec.title}.* " + (f"{note} " if note else "") + f"Metrics: `{metric_config}`."
              + (f" {legend_note}" if legend_note else "")]
    return "\n".join(lines) + "\n"


def to_latex(table: pd.DataFrame, spec: TableSpec, metric_config: str) -> str:
    headers, rows = cells(table, spec, PLUS_MINUS)
    labels = len(headers) - len(spec.columns)
    columns = "l" * labels + "r" * len(spec.columns)
    out = [r"\begin{table}[t]", r"\centering", r"\small", r"\begin{tabular}{" + columns + "}",
           r"\toprule"]
    # Spanning group headers with cmidrules, as in 003's tables.
    if any(c.group for c in spec.columns):
        # Columns are 1-based; the label columns come first.
        parts, rules, col = [""] * labels, [], labels + 1
        for group, members in itertools.groupby(spec.columns, key=lambda c: c.group):
            width = len(list(members))
            if group:
                parts.append(rf"\multicolumn{{{width}}}{{c}}{{{tex_escape(group)}}}")
                rules.append(rf"\cmidrule(lr){{{col}-{col + width - 1}}}")
            else:
                parts += [""] * width
            col += width
        out.append(" & ".join(parts) + r" \\")
        out.append(" ".join(rules))
    out.append(" & ".join(tex_escape(h) for h in headers) + r" \\")
    out.append(r"\midrule")
    corpus = None
    for r in rows:
        if corpus is not None and r[0] != corpus:
            out.append(r"\midrule")
        corpus = r[0]
        out.append(" & ".join(tex_escape(c) for c in r) + r" \\")
    out += [r"\bottomrule", r"\end{tabular}"]
    note = table_notes(table, spec)
    out.append(rf"\caption{{{tex_escape(spec.title)}. {tex_escape(note + ' ' if note else '')}"
               rf"Metrics: \texttt{{{tex_escape(metric_config)}}}. "
               r"Runs and their signatures: Table~\ref{tab:run_legend}.}")
    out.append(rf"\label{{tab:{spec.name}}}")
    out.append(r"\end{table}")
    return "\n".join(out) + "\n"


def to_csv_frame(table: pd.DataFrame, spec: TableSpec) -> pd.DataFrame:
    """Raw values (no rounding, no scaling) with run ids, names, every option and signatures."""
    rows = ordered_rows(table, spec.originals)
    names = run_names(table)
    out = pd.DataFrame({
        "run_id": rows.index, "corpus": rows["corpus"].to_numpy(),
        "model": [system_label(r) for _, r in rows.iterrows()], "mode": [mode_label(r) for _, r in rows.iterrows()],
    })
    for c in spec.columns:
        out[c.metric] = rows[c.metric].to_numpy()
    # Appended after the metrics, so the columns machines already read keep their places.
    out["sees"] = [sees_label(r) for _, r in rows.iterrows()]
    out["signature"] = rows["signature"].to_numpy()
    out["name"] = [names[i] for i in rows.index]
    for column, values in all_options(rows).items():
        if column in ("mode", "sees"):  # already there, as the labels above
            continue
        out[column] = values
    if "similarity_word" in [c.metric for c in spec.columns]:  # the caption's note, per row (None: not judged)
        flags = discriminates_by_run(rows)
        out["similarity_word_discriminates"] = [flags.get(str(i)) for i in rows.index]
    for c in spec.columns:  # issue 40's intervals and marks, last, where the table has them
        for extra in (c.metric + LOW, c.metric + HIGH, c.metric + MARK, c.metric + COVERAGE,
                      c.metric + SEEDS_MEAN, c.metric + SEEDS_SD, c.metric + SEEDS_N):
            if extra in rows:
                out[extra] = rows[extra].to_numpy()
    return out
