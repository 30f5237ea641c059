"""How runs are named in tables and figures, and the signature captions."""

from __future__ import annotations

import pandas as pd

from workbench.metrics.metric_frame import is_original
from workbench.metrics.run_names import UPOS_MARK


def system_label(row: pd.Series) -> str:
    """003's "Model" column: the generator, with its model where it has one."""
    if is_original(row):
        return "Original"
    model = str(row["model"])
    if model in ("-", "", "None") or model == "ud-pud":
        return str(row["generator"])
    return f"{row['generator']} ({model})"


def mode_label(row: pd.Series) -> str:
    """003's "Mode" column: maskL / repL, `+UPOS` with the UPOS filter, "+consistent:document"
    (or corpus) with entity consistency."""
    if is_original(row):
        return ""
    mode = str(row["mode"])
    if bool(row["upos_filter"]):
        mode += f" {UPOS_MARK}"
    consistent = str(row.get("consistent", "off"))
    if consistent not in ("off", "-", "", "nan", "None"):
        mode += f" +consistent:{consistent}"
    return mode


def sees_label(row: pd.Series) -> str:
    """The "Sees" column: what the generator saw of the originals (Generator.sees_summary:
    context, shape, original, or e.g. "shape;DATETIME=original"); blank for Original rows,
    "-" for runs that were not generated (imports, reference anonymisations)."""
    if is_original(row):
        return ""
    sees = row.get("sees")
    return "-" if sees is None or (isinstance(sees, float) and sees != sees) else str(sees)


def short_id(row: pd.Series) -> str:
    """The stored run id's first 8 characters (enough for `workbench show`); blank for Original rows."""
    return "" if is_original(row) else str(row["stored_run"])[:8]
