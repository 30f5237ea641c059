"""Report tables shaped like 003 Tables 2, 3 and 4, plus one for the measures beyond them.

One row per run (Original rows per corpus where the paper has them), named by its short name
(workbench.reports.run_names) with its short id, and a column for each option that varies
between the table's runs (leak guard, window, seed …; only those). The signatures are not
repeated under each table: the run legend (`legend`, report.md's "Runs" section and
run_legend.{md,tex,csv}) gives each name its signature once. Rendered as Markdown, LaTeX
(booktabs) and CSV; the CSV carries raw values, run ids, signatures and every option.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import pandas as pd

from workbench.metrics import metric_infos
from workbench.metrics.languages import stored_corpus, stored_run_id
from workbench.metrics.metric_frame import is_original_run
from workbench.metrics.similarity import discriminates_by_run, word_discrimination_note
from workbench.reports.labels import mode_label, sees_label, short_id, system_label
from workbench.reports.run_names import OPTIONS, option_text, run_names, varying_options
from workbench.upos.label_upos import CONTRADICTION_NOTE_ABOVE

# The columns that name a run, before the varying options and the metrics.
LABEL_HEADERS = ("Corpus", "Run", "Id")


@dataclass(frozen=True, slots=True)
class Column:
    metric: str
    header: str
    group: str = ""  # a spanning header over consecutive columns ("PII overlap %")
    scale: float = 1.0  # 100 for percentages
    digits: int = 3  # decimals; 0 for counts


@dataclass(frozen=True, slots=True)
class TableSpec:
    name: str  # file stem
    title: str
    columns: tuple[Column, ...]
    originals: bool = False  # show the Original rows


TABLES = (
    TableSpec("table2_diversity", "PII and pseudonym word/phrase form diversity (003 Table 2)", (
        Column("form_freq_avg", "avg.", "Span form frequency", digits=1),
        Column("form_freq_std", "std", "Span form frequency", digits=1),
        Column("form_freq_min", "min", "Span form frequency", digits=0),
        Column("form_freq_max", "max", "Span form frequency", digits=0),
        Column("unique_forms", "unique spans", digits=0),
        Column("spans", "spans", digits=0),
    ), originals=True),
    TableSpec("table3_quality", "UPOS accuracy, PII overlap and similarity (003 Table 3)", (
        Column("upos_accuracy", "UPOS acc.%", scale=100, digits=1),
        # How often the tagger contradicts the originals' labels: where high, UPOS acc. rests on its errors.
        Column("upos_tagger_contradiction", "tagger contra.%", scale=100, digits=1),
        Column("overlap_partial", "part.", "PII overlap %", scale=100, digits=2),
        Column("overlap_absolute", "abs.", "PII overlap %", scale=100, digits=2),
        # Beyond 003: the partial overlap on content words (function words and titles left out).
        Column("overlap_partial_content", "part. content", "PII overlap %", scale=100, digits=2),
        # Similarity rescaled against chance (docs/metrics.md), then beside it 003's figure (the raw
        # cosines a reader of 003 compares with) and the chance levels; the caption says where word
        # similarity does not tell the generated runs apart (similarity.word_discrimination_note).
        Column("similarity_word", "word", "Similarity (rescaled, 0 = chance)", digits=3),
        Column("similarity_sentence", "sent.", "Similarity (rescaled, 0 = chance)", digits=3),
        Column("similarity_word_raw", "word", "Cosine (raw, 003's figure)", digits=3),
        Column("similarity_sentence_raw", "sent.", "Cosine (raw, 003's figure)", digits=3),
        Column("similarity_word_baseline", "word", "Chance b", digits=3),
        Column("similarity_sentence_baseline", "sent.", "Chance b", digits=3),
    )),
    TableSpec("table4_rouge", "Average ROUGE-1/2/L/Lsum between summaries of original and pseudonymised "
              "documents (003 Table 4)", (
        Column("rouge_1", "1", "ATS Rouge", digits=4),
        Column("rouge_2", "2", "ATS Rouge", digits=4),
        Column("rouge_L", "L", "ATS Rouge", digits=4),
        Column("rouge_Lsum", "Lsum", "ATS Rouge", digits=4),
    )),
    TableSpec("table5_beyond", "Document uniqueness, multi-word and FAILED rates, time, detectability, "
              "entity coherence and TPS", (
        Column("unique_ratio", "uniq./doc", digits=3),
        Column("multiword_rate", "multi-word %", scale=100, digits=1),
        Column("failed_rate", "FAILED %", scale=100, digits=2),
        Column("seconds_per_span", "s/span", digits=4),
        Column("classifier_accuracy", "clf. acc.", digits=3),
        Column("consistency", "consist.", "Entities", digits=3),
        Column("merged_entity_rate", "merged", "Entities", digits=3),
        Column("tps", "TPS", digits=3),
        Column("tps_raw", "TPS raw", digits=3),
    ), originals=True),
)


def _rows(table: pd.DataFrame, spec: TableSpec) -> pd.DataFrame:
    keep = [i for i in table.index if spec.originals or not is_original_run(i)]
    # Group by corpus, Original first, then the runs in the order asked for.
    order = {c: n for n, c in enumerate(dict.fromkeys(table.loc[keep, "corpus"]))}
    keep.sort(key=lambda i: (order[table.at[i, "corpus"]], not is_original_run(i)))
    return table.loc[keep]


def _format(value, column: Column) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{float(value) * column.scale:.{column.digits}f}"


def _arrow(metric: str) -> str:
    info = metric_infos().get(metric)
    return info.arrow if info else ""


def label_headers(table: pd.DataFrame, spec: TableSpec) -> list[str]:
    """The columns before the metrics: Corpus, Run (the name), Id, then the varying options."""
    return list(LABEL_HEADERS) + [o.header for o in varying_options(_rows(table, spec))]


def cells(table: pd.DataFrame, spec: TableSpec) -> tuple[list[str], list[list[str]]]:
    """Headers and formatted rows (Corpus, Run, Id, varying options…, metrics…)."""
    rows_of = _rows(table, spec)
    names = run_names(table)  # over the whole table, so every table and figure names a run alike
    options = varying_options(rows_of)
    headers = list(LABEL_HEADERS) + [o.header for o in options] + [c.header + _arrow(c.metric) for c in spec.columns]
    rows = []
    for run_id, row in rows_of.iterrows():
        original = is_original_run(run_id)
        rows.append([str(row["corpus"]), names[run_id], short_id(str(run_id))]
                    + ["" if original else option_text(row, o.column) for o in options]
                    + [_format(row.get(c.metric), c) for c in spec.columns])
    return headers, rows


def flat_cells(table: pd.DataFrame, spec: TableSpec) -> tuple[list[str], list[list[str]]]:
    """cells() with each spanning group header as a prefix ("Similarity raw: word"), for the
    formats that have no colspan (Markdown, the dashboard): the headers are then unique."""
    headers, rows = cells(table, spec)
    groups = [""] * (len(headers) - len(spec.columns)) + [c.group for c in spec.columns]
    return [f"{g}: {h}" if g else h for g, h in zip(groups, headers)], rows


def _legend_rows(table: pd.DataFrame) -> pd.DataFrame:
    """Every real run once: a run over a mixed-language corpus has a row per language
    (workbench.metrics.languages) but one signature."""
    rows = _rows(table, TableSpec("legend", "", ()))
    return rows[~pd.Index([stored_run_id(i) for i in rows.index]).duplicated()]


def legend(table: pd.DataFrame) -> list[tuple[str, str, str, str]]:
    """The run legend: (corpus, name, short id, signature) of every real run, in table order."""
    names = run_names(table)
    return [(stored_corpus(row["corpus"]), names[i], short_id(str(i)), str(row["signature"]))
            for i, row in _legend_rows(table).iterrows()]


def legend_markdown(table: pd.DataFrame) -> str:
    """One line per run, grouped by corpus: its name, id and signature (a list, not a table: a
    600-character signature would make a table cell as wide as the page, and holds '|')."""
    lines, corpus = [], None
    for c, n, i, sig in legend(table):
        if c != corpus:
            lines += ([""] if corpus is not None else []) + [f"**{c}**", ""]
            corpus = c
        lines.append(f"- **{n}** (`{i}`): `{sig}`")
    return "\n".join(lines) + "\n"


def _breakable(signature: str) -> str:
    # A signature has no spaces: let LaTeX break it after each field separator.
    return tex_escape(signature).replace(r"\textbar{}", r"\textbar{}\allowbreak{}")


def legend_latex(table: pd.DataFrame) -> str:
    rows = [rf"{tex_escape(c)} & {tex_escape(n)} & \texttt{{{tex_escape(i)}}} & \texttt{{{_breakable(sig)}}} \\"
            for c, n, i, sig in legend(table)]
    return "\n".join([r"\begin{table}[t]", r"\centering", r"\scriptsize",
                      r"\begin{tabular}{lllp{0.55\linewidth}}", r"\toprule", r"Corpus & Run & Id & Signature \\",
                      r"\midrule", *rows, r"\bottomrule", r"\end{tabular}",
                      r"\caption{Runs: each run's name in the tables and figures, its id and its full signature.}",
                      r"\label{tab:run_legend}", r"\end{table}"]) + "\n"


def legend_frame(table: pd.DataFrame) -> pd.DataFrame:
    """run_legend.csv: one row per run, its name, every option and its signature."""
    names = run_names(table)
    rows = _legend_rows(table)
    return pd.DataFrame({"run_id": [stored_run_id(i) for i in rows.index],
                         "corpus": [stored_corpus(c) for c in rows["corpus"]],
                         "name": [names[i] for i in rows.index], **_all_options(rows),
                         "signature": rows["signature"].to_numpy()})


def tagger_note(table: pd.DataFrame, spec: TableSpec) -> str:
    """A sentence for the caption of a table with UPOS accuracy where, for some corpus, the
    tagger's UPOS of more than CONTRADICTION_NOTE_ABOVE of the originals contradicts their
    labels (workbench/upos/label_upos.py); "" otherwise."""
    column = "upos_tagger_contradiction"
    if column not in table or "upos_accuracy" not in [c.metric for c in spec.columns]:
        return ""
    rows = _rows(table, spec)
    worst = rows[column].astype(float).groupby(rows["corpus"].astype(str), sort=False).max()
    high = worst[worst > CONTRADICTION_NOTE_ABOVE]
    if high.empty:
        return ""
    where = ", ".join(f"{corpus} {rate * 100:.1f} %" for corpus, rate in high.items())
    return (f"The tagger's UPOS contradicts the original's label for more than "
            f"{CONTRADICTION_NOTE_ABOVE * 100:g} % of the spans ({where}; column tagger contra.): "
            "there UPOS accuracy partly rewards agreeing with the tagger's errors.")


def table_notes(table: pd.DataFrame, spec: TableSpec) -> str:
    """The caption's notes on the table's own figures (tagger contradictions, similarity that
    does not discriminate), "" where there is none."""
    notes = [tagger_note(table, spec)]
    if "similarity_word" in [c.metric for c in spec.columns]:
        notes.append(word_discrimination_note(_rows(table, spec)))
    return " ".join(n for n in notes if n)


def caption(table: pd.DataFrame, spec: TableSpec, metric_config: str) -> str:
    """The caption with every run's signature (the dashboard's expander; files use the legend)."""
    names = run_names(table)
    runs = "; ".join(f"[{names[i]} · {short_id(str(i))}] {row['signature']}"
                     for i, row in _rows(table, spec).iterrows() if not is_original_run(i))
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


_TEX_ESCAPES = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
    "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "|": r"\textbar{}", "<": r"\textless{}",
    ">": r"\textgreater{}", "↑": r"$\uparrow$", "↓": r"$\downarrow$", "→": r"$\rightarrow$", "–": "--",
    "·": r"$\cdot$",
}


def tex_escape(text: str) -> str:
    return "".join(_TEX_ESCAPES.get(ch, ch) for ch in str(text))


def to_latex(table: pd.DataFrame, spec: TableSpec, metric_config: str) -> str:
    headers, rows = cells(table, spec)
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


def _all_options(rows: pd.DataFrame) -> dict[str, list]:
    """Every option of every run, whether or not it varies (CSV files are for machines)."""
    out = {"generator": rows["generator"].tolist(), "model_id": rows["model"].tolist()}
    for option in OPTIONS:
        out[option.column] = [None if is_original_run(i) or option_text(r, option.column) == "-"
                              else r[option.column] for i, r in rows.iterrows()] if option.column in rows else None
    out["source"] = rows["source"].tolist()
    out["config"] = rows["config"].tolist() if "config" in rows else None
    return out


def to_csv_frame(table: pd.DataFrame, spec: TableSpec) -> pd.DataFrame:
    """Raw values (no rounding, no scaling) with run ids, names, every option and signatures."""
    rows = _rows(table, spec)
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
    for column, values in _all_options(rows).items():
        if column in ("mode", "sees"):  # already there, as the labels above
            continue
        out[column] = values
    if "similarity_word" in [c.metric for c in spec.columns]:  # the caption's note, per row (None: not judged)
        flags = discriminates_by_run(rows)
        out["similarity_word_discriminates"] = [flags.get(str(i)) for i in rows.index]
    return out
