"""Per-label report tables (issue 15, item 3): how PERSON, LOC, DATETIME … fare, per run.

One small table per metric and corpus: runs as rows (named by workbench.metrics.run_names, with
the options that vary as columns, as in the other tables), the corpus's labels as columns
(most spans first) and the run's overall value last. With 8 labels × 10 metrics a single
wide table would run off the page; one table per metric stays readable with 25 runs. A
first table gives the number of spans per label, the denominator of every rate.

The CSV (per_label.csv) is long: one row per (run, label), raw values of every per-label
metric, run name, every option and the signature, like the other tables' CSVs.
"""

from __future__ import annotations

import pandas as pd

from workbench.metrics import metric_infos
from workbench.metrics.per_label import ID_COLUMNS
from workbench.metrics.run_names import all_options, option_text, run_names, varying_options
from workbench.reports.labels import short_id
from workbench.reports.table_specs import Column
from workbench.reports.tables import format_cell, metric_arrow, ordered_rows
from workbench.reports.tex import tex_escape

# The per-label metrics report.md shows, as the report's other tables scale them. The raw
# cosines and the pick's UPOS accuracy are in per_label.csv (Table 3 shows the raw cosines).
COLUMNS = (
    Column("upos_accuracy", "UPOS acc.%", scale=100, digits=1),
    Column("upos_tagger_contradiction", "tagger contradicts label %", scale=100, digits=1),
    Column("overlap_partial", "PII overlap part. %", scale=100, digits=2),
    Column("overlap_absolute", "PII overlap abs. %", scale=100, digits=2),
    Column("overlap_partial_content", "PII overlap part. content %", scale=100, digits=2),
    Column("leak_verbatim", "kept verbatim %", scale=100, digits=2),  # the privacy side (issue 24 item 1)
    Column("similarity_word", "word similarity", digits=3),
    Column("similarity_sentence", "sentence similarity", digits=3),
    Column("multiword_rate", "multi-word %", scale=100, digits=1),
    Column("failed_rate", "FAILED %", scale=100, digits=2),
    Column("consistency", "entity consistency", digits=3),
    Column("merged_entity_rate", "merged-entity rate", digits=3),
    Column("seconds_per_span", "s/span", digits=4),
    Column("recall_mention", "detection recall (mentions) %", scale=100, digits=1),  # imported runs only
)
SPANS = Column("spans", "spans", digits=0)
ALL = "all"  # the header of the run's overall value


def corpus_labels(by_label: pd.DataFrame, run_ids) -> list[str]:
    """The labels of these runs in by_label's order (label_metrics: most spans first)."""
    return list(dict.fromkeys(by_label.loc[by_label["run_id"].isin(list(run_ids)), "label"]))


def shown_columns(table: pd.DataFrame, by_label: pd.DataFrame) -> list[Column]:
    """The COLUMNS with a value for some run and label (a family not computed has none)."""
    return [c for c in COLUMNS if c.metric in by_label.columns and by_label[c.metric].notna().any()]


def corpus_blocks(table: pd.DataFrame) -> dict[str, list]:
    """Real runs (no Original rows) by corpus, in table order."""
    blocks: dict[str, list] = {}
    for run_id, row in ordered_rows(table, originals=False).iterrows():
        blocks.setdefault(str(row["corpus"]), []).append(run_id)
    return blocks


def label_cells(table: pd.DataFrame, by_label: pd.DataFrame, column: Column, run_ids: list,
                names: pd.Series | None = None) -> tuple[list[str], list[list[str]]]:
    """Headers and formatted rows of one metric's table: Run, Id, varying options, one column
    per label ("–" where the run has no span of the label or no value), then the run's value.
    names: run_names(table), when the caller has them (a table per metric and corpus each
    computing them again was most of a report's per-label files)."""
    names = run_names(table) if names is None else names
    rows = table.loc[run_ids]
    options = varying_options(rows)
    labels = corpus_labels(by_label, run_ids)
    values = by_label.set_index(["run_id", "label"])[column.metric]
    headers = ["Run", "Id"] + [o.header for o in options] + labels + [ALL]
    out = []
    for run_id, row in rows.iterrows():
        cells = [format_cell(values.get((run_id, label)), column) for label in labels]
        if column is SPANS:  # a run's spans: all of its labels' spans
            overall = format_cell(by_label.loc[by_label["run_id"] == run_id, "spans"].sum(), column)
        else:
            overall = format_cell(row.get(column.metric), column)
        out.append([names[run_id], short_id(row)] + [option_text(row, o.column) for o in options]
                   + cells + [overall])
    return headers, out


def _markdown(headers: list[str], rows: list[list[str]], numeric_from: int) -> list[str]:
    lines = ["| " + " | ".join(headers) + " |",
             "|" + "|".join(["---"] * numeric_from + ["---:"] * (len(headers) - numeric_from)) + "|"]
    return lines + ["| " + " | ".join(r) + " |" for r in rows]


def to_markdown(table: pd.DataFrame, by_label: pd.DataFrame, *, heading: str = "###") -> str:
    """The spans table, then one table per metric, each with a block per corpus."""
    blocks, names = corpus_blocks(table), run_names(table)
    infos = metric_infos()
    parts = []
    for column in [SPANS, *shown_columns(table, by_label)]:
        title = "Spans per label" if column is SPANS else f"{column.header} {metric_arrow(column.metric)}".strip()
        parts += [f"{heading} {title}", ""]
        if column is not SPANS:
            parts += [f"{infos[column.metric].description}; per label, over that label's "
                      + ("entities" if infos[column.metric].family == "entities" else "spans")
                      + f"; `{ALL}`: the run's value.", ""]
        for corpus, run_ids in blocks.items():
            headers, rows = label_cells(table, by_label, column, run_ids, names)
            if len(blocks) > 1:
                parts += [f"**{corpus}**", ""]
            parts += _markdown(headers, rows, len(headers) - len(corpus_labels(by_label, run_ids)) - 1) + [""]
    return "\n".join(parts)


def to_latex(table: pd.DataFrame, by_label: pd.DataFrame) -> str:
    """per_label.tex: one booktabs table float per metric (spans first); within it a tabular per
    corpus under the corpus's name, since the corpora's labels differ."""
    out, names = [], run_names(table)
    for column in [SPANS, *shown_columns(table, by_label)]:
        title = "Spans" if column is SPANS else f"{column.header} {metric_arrow(column.metric)}".strip()
        out += [r"\begin{table}[t]", r"\centering", r"\small"]
        for corpus, run_ids in corpus_blocks(table).items():
            headers, rows = label_cells(table, by_label, column, run_ids, names)
            numeric = len(corpus_labels(by_label, run_ids)) + 1
            out += [r"\textbf{" + tex_escape(corpus) + r"}\\[2pt]",
                    r"\begin{tabular}{" + "l" * (len(headers) - numeric) + "r" * numeric + "}", r"\toprule",
                    " & ".join(tex_escape(h) for h in headers) + r" \\", r"\midrule",
                    *(" & ".join(tex_escape(c) for c in r) + r" \\" for r in rows),
                    r"\bottomrule", r"\end{tabular}", r"\medskip", ""]
        out += [r"\caption{" + tex_escape(title) + r" per entity label; \emph{all}: the run's value. "
                r"Runs and their signatures: Table~\ref{tab:run_legend}.}",
                r"\label{tab:per_label_" + column.metric.replace("_", "-") + "}", r"\end{table}", ""]
    return "\n".join(out)


def to_csv_frame(table: pd.DataFrame, by_label: pd.DataFrame) -> pd.DataFrame:
    """per_label.csv: one row per (run, label), raw values, the run's name, options and signature."""
    names = run_names(table)
    rows = table.loc[by_label["run_id"]]
    out = by_label.reset_index(drop=True).copy()
    out.insert(1, "corpus", rows["corpus"].to_numpy())
    out.insert(2, "name", [names[r] for r in by_label["run_id"]])
    metrics = [c for c in by_label.columns if c not in ID_COLUMNS]
    out = out[["run_id", "corpus", "name", "label", "spans", "entities", *metrics]]
    for column, values in all_options(rows).items():
        out[column] = values
    out["signature"] = rows["signature"].to_numpy()
    return out
