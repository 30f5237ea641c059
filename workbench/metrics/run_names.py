"""Short readable run names for tables and figures, and the options that tell runs apart.

A run's name is its stored name (`--name`, a benchmark entry's `run_name`) or a default built
from its settings: generator, mode, `+UPOS` with the UPOS filter, "+guard" with the leak
guard, "+consistent:SCOPE" with entity consistency, and the model only where two runs of that
generator on one corpus have different models ("fill-mask offline-en maskL +UPOS", never the
model's 60-character cache key on every row). Names are made unique within a corpus (tables
group and figures facet by corpus): runs that share a name get the options that differ
between them appended ("random maskL · seed=14"), or their short id where no option does.

Every function takes the metric table (workbench.metrics.compute_metrics: one row per run,
the run columns of workbench.metrics.RUN_COLUMNS), so the names depend only on the runs shown.
It lives here, below both workbench.reports and workbench.annotation (Table 6 names runs as
the report does), so that annotation never imports reports, which reads annotations.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePath

import pandas as pd

from workbench.metrics.metric_frame import IDENTITY_COLUMNS, is_original, run_rows
from workbench.store.signature import IMPORTED, REFERENCE, REVIEWED

ORIGINAL_NAME = "Original"
# The UPOS filter in a run's name, the report's Mode column, Table 6 and the dashboard: written as
# paper 003's tables write it (its Mode column reads `+UPOS`), in this one place.
UPOS_MARK = "+UPOS"
# Model ids are paths, hub ids or cache keys ("offline-en-8b995f032cb9"): the name keeps the
# last path part without a trailing hash, cut to this many characters.
MODEL_CHARS = 24


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or value in ("", "-", "nan", "None")


def _on_off(value) -> str:
    return "on" if bool(value) else "off"


@dataclass(frozen=True, slots=True)
class RunOption:
    """A setting that can differ between runs: its column in the metric table, its header in
    report tables, and how its value reads."""
    column: str
    header: str
    text: Callable[[object], str] = str


def _integer(value) -> str:
    return str(int(value))


# The options a report table shows as columns where they vary between its runs, in this order
# (model and generator are in the name; the signature in the run legend has everything).
OPTIONS = (
    RunOption("mode", "Mode"),
    RunOption("upos_filter", "UPOS filter", _on_off),
    RunOption("leak_guard", "Leak guard", _on_off),
    RunOption("window", "Window", _integer),
    RunOption("seed", "Seed", _integer),
    RunOption("top_k", "Top-k", _integer),
    RunOption("consistent", "Consistency"),
    RunOption("sees", "Sees"),
    RunOption("dtype", "Dtype"),
    RunOption("tagger", "Tagger"),
)
_BY_COLUMN = {o.column: o for o in OPTIONS}


def option_text(row: pd.Series, column: str) -> str:
    """The value of an option as a table cell; "-" where it does not apply (an imported run has no seed)."""
    value = row.get(column)
    if _missing(value):
        return "-"
    option = _BY_COLUMN.get(column)
    return option.text(value) if option else str(value)


def all_options(rows: pd.DataFrame) -> dict[str, list]:
    """Every option of every row, whether or not it varies (CSV files are for machines); None
    where it does not apply, and on Original rows."""
    out = {"generator": rows["generator"].tolist(), "model_id": rows["model"].tolist()}
    for option in OPTIONS:
        out[option.column] = [None if is_original(r) or option_text(r, option.column) == "-"
                              else r[option.column] for _, r in rows.iterrows()] if option.column in rows else None
    out["source"] = rows["source"].tolist()
    out["config"] = rows["config"].tolist() if "config" in rows else None
    return out


def short_model(model: str) -> str:
    """A model id as a name shows it: per language part, the last path component without a
    trailing hash; "en=offline-en-8b9…,sv=offline-sv-0c1…" → "offline-en/offline-sv"."""
    parts = [p.partition("=")[2] or p for p in str(model).split(",")]
    short = [re.sub(r"[-_.][0-9a-f]{8,}$", "", PurePath(p.rstrip("/")).name or p) for p in parts]
    text = "/".join(dict.fromkeys(s for s in short if s))
    return text if len(text) <= MODEL_CHARS else text[:MODEL_CHARS - 1] + "…"


def default_name(row: pd.Series, with_model: bool = False) -> str:
    """The name a run gets when it was given none (see the module's docstring)."""
    generator = str(row["generator"])
    source = row.get("source")
    if source == REFERENCE:
        return f"{generator} (reference)"
    if source == IMPORTED:
        return f"{generator} (imported)"
    if source == REVIEWED:  # a person's revision of a run of this generator (workbench.exchange.review_import)
        return f"{generator} {row['mode']} (reviewed)"
    parts = [generator]
    if with_model and not _missing(row.get("model")):
        parts.append(short_model(str(row["model"])))
    parts.append(str(row["mode"]))
    if bool(row.get("upos_filter")):
        parts.append(UPOS_MARK)
    if not _missing(row.get("leak_guard")) and bool(row.get("leak_guard")):
        parts.append("+guard")
    consistent = row.get("consistent")
    if not _missing(consistent) and consistent != "off":
        parts.append(f"+consistent:{consistent}")
    return " ".join(parts)


def _config(row: pd.Series) -> dict:
    try:
        config = json.loads(row.get("config") or "{}")
    except (TypeError, ValueError):
        return {}
    return {k: v for k, v in config.items() if k not in ("device", "dtype")}  # dtype is an option of its own


def _settings(row: pd.Series) -> dict[str, str]:
    """Every setting a name may need to tell runs apart, as "option" -> value text."""
    out = {"model": short_model(str(row["model"]))}
    out |= {o.header.lower(): option_text(row, o.column) for o in OPTIONS if o.column in row}
    out |= {k: json.dumps(v, default=str) if not isinstance(v, str) else v for k, v in _config(row).items()}
    return out


def _suffixes(rows: pd.DataFrame, everything: bool) -> dict:
    """For runs that share a name: "option=value" for each setting where a run differs from the
    value most of them share (so the usual run keeps the bare name); with `everything`, or where
    no value is held by more runs than any other, every run shows the setting."""
    settings = {i: _settings(r) for i, r in rows.iterrows()}
    keys = [k for k in dict.fromkeys(k for s in settings.values() for k in s)
            if len({s.get(k, "-") for s in settings.values()}) > 1]
    out: dict[object, list[str]] = {i: [] for i in settings}
    for key in keys:
        counts = pd.Series([s.get(key, "-") for s in settings.values()]).value_counts()
        usual = counts.index[0] if not everything and (len(counts) == 1 or counts.iloc[0] > counts.iloc[1]) else None
        for i, s in settings.items():
            if s.get(key, "-") != usual:
                out[i].append(f"{key}={s.get(key, '-')}")
    return {i: ", ".join(parts) for i, parts in out.items()}


def run_names(table: pd.DataFrame) -> pd.Series:
    """The name of every row of the metric table (index: run id), unique within each corpus."""
    names = pd.Series(ORIGINAL_NAME, index=table.index, dtype=object)
    real = run_rows(table)
    if not real:
        return names
    # The model only where it tells runs of one generator on one corpus apart.
    models = table.loc[real].groupby(["corpus", "generator"])["model"].transform(lambda s: s.astype(str).nunique())
    for i in real:
        row = table.loc[i]
        stored = row.get("name")
        names[i] = str(stored) if not _missing(stored) else default_name(row, with_model=bool(models[i] > 1))
    base = names.copy()
    for _, group in table.loc[real].groupby(["corpus", base[real]], sort=False):
        if len(group) < 2:
            continue
        for everything in (False, True):
            suffixes = _suffixes(group, everything)
            candidate = {i: base[i] + (f" · {suffixes[i]}" if suffixes[i] else "") for i in group.index}
            if len(set(candidate.values())) == len(candidate):
                break
        # Runs alike in every setting shown (another library version, another imported file):
        # their short ids.
        values = list(candidate.values())
        for i, name in candidate.items():
            names[i] = f"{name} [{str(table.at[i, 'stored_run'])[:8]}]" if values.count(name) > 1 else name
    return names


def varying_options(table: pd.DataFrame) -> list[RunOption]:
    """The options (OPTIONS) with more than one value among the table's runs (Original rows and
    runs where an option does not apply are left out of the count)."""
    real = table.loc[run_rows(table)]
    out = []
    for option in OPTIONS:
        if option.column not in real:
            continue
        values = {option_text(r, option.column) for _, r in real.iterrows()} - {"-"}
        if len(values) > 1:
            out.append(option)
    return out


def record_table(records) -> pd.DataFrame:
    """The run columns run_names reads, from stored runs (RunRecord) rather than a metric table:
    for pages and tables that have no metric table (003 Table 6 and Figure 2)."""
    from workbench.store.signature import GENERATED
    rows = [{"run_id": r.run_id, "corpus": r.corpus_name, "generator": r.generator, "model": r.model, "mode": r.mode,
             "upos_filter": r.upos_filter, "consistent": r.consistency if r.source == GENERATED else "-",
             "sees": r.sees_level if r.source == GENERATED else "-", "source": r.source, "signature": r.signature,
             "name": r.name or "", "tagger": r.tagger, "window": r.window, "seed": r.seed, "top_k": r.top_k,
             "leak_guard": r.leak_guard, "dtype": r.dtype, "config": json.dumps(r.config, sort_keys=True, default=str),
             "stored_run": r.run_id, "stored_corpus": r.corpus_name}
            for r in records]
    return pd.DataFrame(rows, columns=["run_id", "corpus", "generator", "model", "mode", "upos_filter", "consistent",
                                       "sees", "source", "signature", "name", "tagger", "window", "seed", "top_k",
                                       "leak_guard", "dtype", "config", *IDENTITY_COLUMNS]).set_index("run_id")
