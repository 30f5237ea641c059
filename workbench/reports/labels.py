"""How runs are named in tables and figures, and the signature captions."""

from __future__ import annotations

import pandas as pd

from workbench.metrics.metric_frame import ORIGINAL, is_original_run


def _original_rows(row: pd.Series) -> bool:
    # The Original pseudo-rows (source "original", run id original:<corpus>), never a stored
    # run whose generator happens to be called "original" (the reference run of that name).
    return row.get("source") == ORIGINAL or is_original_run(row.name)


def system_label(row: pd.Series) -> str:
    """003's "Model" column: the generator, with its model where it has one."""
    if _original_rows(row):
        return "Original"
    model = str(row["model"])
    if model in ("-", "", "None") or model == "ud-pud":
        return str(row["generator"])
    return f"{row['generator']} ({model})"


def mode_label(row: pd.Series) -> str:
    """003's "Mode" column: maskL / repL, "+UPOS" with the UPOS filter, "+consistent:document"
    (or corpus) with entity consistency."""
    if _original_rows(row):
        return ""
    mode = str(row["mode"])
    if bool(row["upos_filter"]):
        mode += " +UPOS"
    consistent = str(row.get("consistent", "off"))
    if consistent not in ("off", "-", "", "nan", "None"):
        mode += f" +consistent:{consistent}"
    return mode


def sees_label(row: pd.Series) -> str:
    """The "Sees" column: what the generator saw of the originals (Generator.sees_summary:
    context, shape, original, or e.g. "shape;DATETIME=original"); blank for Original rows,
    "-" for runs that were not generated (imports, reference anonymisations)."""
    if _original_rows(row):
        return ""
    sees = row.get("sees")
    return "-" if sees is None or (isinstance(sees, float) and sees != sees) else str(sees)


def short_id(run_id: str) -> str:
    """The run id's first 8 characters (enough for `workbench show`); blank for Original rows."""
    return "" if is_original_run(run_id) else run_id[:8]


def row_label(row: pd.Series) -> str:
    """One line for figures: corpus · system mode."""
    mode = mode_label(row)
    return f"{row['corpus']} · {system_label(row)}" + (f" {mode}" if mode else "")


def signature_lines(table: pd.DataFrame) -> list[tuple[str, str]]:
    """(short id, signature) for every real run of the table, in row order."""
    return [(short_id(i), str(table.at[i, "signature"])) for i in table.index if not is_original_run(i)]
