"""Report tables shaped like 003 Tables 2, 3 and 4, plus one for the measures beyond them.

One row per run (Original rows per corpus where the paper has them), the run's short id
in a column, and every run's signature in the caption. Rendered as Markdown, LaTeX
(booktabs) and CSV; the CSV carries raw values, run ids and signatures for machines.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import pandas as pd

from workbench.metrics import metric_infos
from workbench.metrics.metric_frame import is_original_run
from workbench.reports.labels import mode_label, sees_label, short_id, signature_lines, system_label

# The columns that name a run, before its metrics.
LABEL_HEADERS = ("Corpus", "Model", "Mode", "Sees", "Run")


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
        Column("overlap_partial", "part.", "PII overlap %", scale=100, digits=2),
        Column("overlap_absolute", "abs.", "PII overlap %", scale=100, digits=2),
        Column("similarity_word", "word", "Similarity", digits=3),
        Column("similarity_sentence", "sent.", "Similarity", digits=3),
        # Similarity is rescaled against chance (docs/metrics.md); the cosines and the chance levels beside it.
        Column("similarity_word_raw", "word", "Cosine (raw)", digits=3),
        Column("similarity_sentence_raw", "sent.", "Cosine (raw)", digits=3),
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


def cells(table: pd.DataFrame, spec: TableSpec) -> tuple[list[str], list[list[str]]]:
    """Headers and formatted rows (Corpus, Model, Mode, Sees, Run, metrics…)."""
    headers = list(LABEL_HEADERS) + [c.header + _arrow(c.metric) for c in spec.columns]
    rows = []
    for run_id, row in _rows(table, spec).iterrows():
        rows.append([str(row["corpus"]), system_label(row), mode_label(row), sees_label(row), short_id(str(run_id))]
                    + [_format(row.get(c.metric), c) for c in spec.columns])
    return headers, rows


def caption(table: pd.DataFrame, spec: TableSpec, metric_config: str) -> str:
    runs = "; ".join(f"[{i}] {sig}" for i, sig in signature_lines(_rows(table, spec)))
    return f"{spec.title}. Metrics: {metric_config}. Runs: {runs}"


def to_markdown(table: pd.DataFrame, spec: TableSpec, metric_config: str) -> str:
    headers, rows = cells(table, spec)
    groups = [""] * len(LABEL_HEADERS) + [c.group for c in spec.columns]
    if any(groups):  # the spanning header as a prefix, since Markdown has no colspan
        headers = [f"{g}: {h}" if g else h for g, h in zip(groups, headers)]
    lines = ["| " + " | ".join(headers) + " |",
             "|" + "|".join(["---"] * len(LABEL_HEADERS) + ["---:"] * len(spec.columns)) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    lines += ["", f"*Table: {spec.title}.* Metrics: `{metric_config}`", "", "Runs:", ""]
    lines += [f"- `{i}`: `{sig}`" for i, sig in signature_lines(_rows(table, spec))]
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
    columns = "l" * len(LABEL_HEADERS) + "r" * len(spec.columns)
    out = [r"\begin{table}[t]", r"\centering", r"\small", r"\begin{tabular}{" + columns + "}",
           r"\toprule"]
    # Spanning group headers with cmidrules, as in 003's tables.
    if any(c.group for c in spec.columns):
        # Columns are 1-based; the label columns come first.
        parts, rules, col = [""] * len(LABEL_HEADERS), [], len(LABEL_HEADERS) + 1
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
    runs = "; ".join(rf"[{tex_escape(i)}] \texttt{{{tex_escape(sig)}}}"
                     for i, sig in signature_lines(_rows(table, spec)))
    out.append(rf"\caption{{{tex_escape(spec.title)}. Metrics: \texttt{{{tex_escape(metric_config)}}}. "
               rf"Runs: {runs}}}")
    out.append(rf"\label{{tab:{spec.name}}}")
    out.append(r"\end{table}")
    return "\n".join(out) + "\n"


def to_csv_frame(table: pd.DataFrame, spec: TableSpec) -> pd.DataFrame:
    """Raw values (no rounding, no scaling) with run ids and signatures."""
    rows = _rows(table, spec)
    out = pd.DataFrame({
        "run_id": rows.index, "corpus": rows["corpus"].to_numpy(),
        "model": [system_label(r) for _, r in rows.iterrows()], "mode": [mode_label(r) for _, r in rows.iterrows()],
    })
    for c in spec.columns:
        out[c.metric] = rows[c.metric].to_numpy()
    # Appended after the metrics, so the columns machines already read keep their places.
    out["sees"] = [sees_label(r) for _, r in rows.iterrows()]
    out["signature"] = rows["signature"].to_numpy()
    return out
