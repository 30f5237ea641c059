"""The run legend: each real run once, its name in the tables and figures, its short id and its
full signature (report.md's "Runs" section, run_legend.md, run_legend.tex, run_legend.csv).

The tables do not repeat the signatures under each table; the legend gives them once. A run
over a mixed-language corpus has a row per language in the metric table
(workbench.metrics.languages) but one line here, under its stored corpus name.
"""

from __future__ import annotations

import pandas as pd

from workbench.metrics.run_names import all_options, run_names
from workbench.reports.labels import short_id
from workbench.reports.tables import ordered_rows
from workbench.reports.tex import tex_escape


def _legend_rows(table: pd.DataFrame) -> pd.DataFrame:
    """Every real run once, in table order."""
    rows = ordered_rows(table, originals=False)
    return rows[~rows["stored_run"].duplicated().to_numpy()]


def legend(table: pd.DataFrame) -> list[tuple[str, str, str, str]]:
    """The run legend: (corpus, name, short id, signature) of every real run, in table order."""
    names = run_names(table)
    return [(str(row["stored_corpus"]), names[i], short_id(row), str(row["signature"]))
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
    return pd.DataFrame({"run_id": rows["stored_run"].to_numpy(), "corpus": rows["stored_corpus"].to_numpy(),
                         "name": [names[i] for i in rows.index], **all_options(rows),
                         "signature": rows["signature"].to_numpy()})
