"""Mean ± sd across seeds (issue 40): runs of the report that differ only in their seed.

`generate --seeds 13,14,15` and a benchmark's `seeds = [...]` store one run per seed
(workbench.generator_contract.seeds). Runs are one configuration's seeds when their signatures are the
same once the seed is taken out, over the same language part: nothing else needs recording, and
runs made one seed at a time with `--seed` group alike. For each metric of the table, each such
group of two or more runs gets, on every member's row, `<metric>_seeds_mean`, `_seeds_sd`
(sample sd, ddof = 1: workbench.uncertainty.across_seeds) and `_seeds_n` (the seeds with a
value), and `seeds` names the group's seeds. The run-level interval (workbench.metrics.intervals)
says how much a figure would move over other documents; this says how much it moves with the
generator's own random draws. A report without such a group gets no column at all.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

from workbench.metrics.metric_frame import run_rows
from workbench.uncertainty import across_seeds

SEEDS_MEAN, SEEDS_SD, SEEDS_N = "_seeds_mean", "_seeds_sd", "_seeds_n"
SEEDS = "seeds"  # the row's group's seeds, "13,14,15"
# The seed's part of a rendered signature (workbench.store.signature.RunSignature.render): only
# generated runs have one; imported, reference and reviewed runs never group.
_SEED_PART = re.compile(r"\|seed=(-?\d+)\|")


def seed_columns(metric: str) -> tuple[str, str, str]:
    return metric + SEEDS_MEAN, metric + SEEDS_SD, metric + SEEDS_N


def seed_groups(table: pd.DataFrame) -> list[list]:
    """The table's run rows grouped by signature without its seed and by language; only groups
    of two or more runs, each in the seeds' order."""
    groups: dict[tuple[str, str], list[tuple[int, object]]] = {}
    for row in run_rows(table):
        signature = str(table.at[row, "signature"])
        found = _SEED_PART.search(signature)
        if found is None:
            continue
        key = (str(table.at[row, "lang"]), _SEED_PART.sub("|seed=*|", signature, count=1))
        groups.setdefault(key, []).append((int(found.group(1)), row))
    return [[row for _, row in sorted(members, key=lambda m: m[0])] for members in groups.values()
            if len(members) >= 2]


def seed_spread(table: pd.DataFrame, metrics: Sequence[str]) -> pd.DataFrame:
    """Index: the table's rows; `seeds` and, for each metric of `metrics` in the table, its
    three seed columns, filled on the rows of each seed group (NaN elsewhere). No column at all
    where no two runs differ only in their seed."""
    groups = seed_groups(table)
    if not groups:
        return pd.DataFrame(index=table.index)
    shown = [m for m in metrics if m in table.columns]
    out = pd.DataFrame(np.nan, index=table.index, columns=[c for m in shown for c in seed_columns(m)])
    out.insert(0, SEEDS, pd.Series(None, index=table.index, dtype=object))
    for members in groups:
        seeds = [_SEED_PART.search(str(table.at[row, "signature"])).group(1) for row in members]  # type: ignore[union-attr]
        out.loc[members, SEEDS] = ",".join(seeds)
        for metric in shown:
            values = pd.to_numeric(table.loc[members, metric], errors="coerce").to_numpy(dtype=np.float64)
            spread = across_seeds(values)
            if spread.n:
                mean, sd, n = seed_columns(metric)
                out.loc[members, mean], out.loc[members, sd], out.loc[members, n] = spread.mean, spread.sd, spread.n
    return out


def seed_text(mean: float, sd: float, n: int, scale: float = 1.0, digits: int = 3) -> str:
    """`0.610 ± 0.004 over 3 seeds` (the mean alone where one seed has a value)."""
    if np.isnan(sd):
        return f"{mean * scale:.{digits}f} over {n} seed"
    return f"{mean * scale:.{digits}f} ± {sd * scale:.{digits}f} over {n} seeds"


CAPTION = ("Runs that differ only in their seed: after ·, the mean ± sd (ddof = 1) of the figure across those seeds' "
           "runs, beside each run's own interval.")
