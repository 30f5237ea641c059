"""Which runs are not significantly different from the best, per metric and corpus (issue 40).

For each metric with a direction (higher or lower is better) and per-unit values
(workbench.metrics.unit_values), the runs over the same corpus and language are compared on
their common units: the best run by its mean, every other run tested against it by approximate
randomisation (paired, whole documents swapped for a span-level metric), the p-values adjusted
together by Holm (workbench.uncertainty.compare_with_best). The metric table gets a
`<metric>_mark` column: BEST for the best run, TIED for a run not significantly different from
it, "" otherwise (and for a group of one run, where there is nothing to compare).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

import pandas as pd

from workbench.metrics.base import HIGHER, LOWER
from workbench.metrics.families import METRIC_FAMILIES
from workbench.metrics.unit_values import SPAN, UnitValues
from workbench.uncertainty import ALPHA, SEED, compare_with_best

MARK = "_mark"
BEST, TIED = "*", "†"
TRIALS = 1000  # approximate-randomisation trials per comparison: p ≥ 1/1001, enough for Holm over a report's runs
CORRECTION = "holm"


def caption_note() -> str:
    return (f"{BEST} best run of its corpus; {TIED} not significantly different from it (paired approximate "
            f"randomisation over documents, {TRIALS} trials, Holm-adjusted, α = {ALPHA:g}).")


def best_marks(table: pd.DataFrame, frame: pd.DataFrame, units: Mapping[str, UnitValues], families: Sequence[str],
               *, seed: int = SEED) -> pd.DataFrame:
    """Index: the table's rows; a `<metric>_mark` column per metric compared (`units`:
    workbench.metrics.unit_values of the same frame)."""
    better = {m.name: m.better for f in families for m in METRIC_FAMILIES.load(f).METRICS}
    metrics = [m for m in table.columns if m in units and better.get(m) in (HIGHER, LOWER)]
    out = pd.DataFrame("", index=table.index, columns=[m + MARK for m in metrics])
    rows = [r for r in dict.fromkeys(frame["run_id"]) if r in table.index]
    groups: dict[tuple, list[str]] = {}
    for row in rows:
        groups.setdefault((table.at[row, "corpus_hash"], table.at[row, "lang"]), []).append(row)
    for metric in metrics:
        values = units[metric]
        for members in groups.values():
            # unit -> value as plain dicts: the paired tests read them unit by unit, and a Series'
            # items() over TAB's 7,320 spans per run was most of this function's seconds.
            every = {row: _unit_dict(values.of_run(row, with_nan=True)) for row in members}
            runs: dict[Hashable, dict] = {row: v for row, v in every.items() if any(x == x for x in v.values())}
            if len(runs) < 2:
                continue
            docs = (lambda unit: unit[0]) if values.kind == SPAN else None
            marks, _ = compare_with_best(runs, higher_is_better=better[metric] == HIGHER, docs=docs, test="ar",
                                         draws=TRIALS, seed=seed, correction=CORRECTION)
            out.at[marks.best, metric + MARK] = BEST
            for row in marks.not_different:
                out.at[row, metric + MARK] = TIED
    return out


def _unit_dict(rows: pd.DataFrame) -> dict:
    return dict(zip(rows["unit"].tolist(), rows["value"].tolist()))
