"""What a reader can conclude from a report, said at the top of its page (issue 42 item 1).

Computed from the report's own numbers, never written by hand. Per corpus and language, over
the runs of the report (the Original rows left out), for every measure of the report's tables
that has a better direction:

- separates the runs: some run is significantly worse than the best (its mark is neither `*`
  nor `†`: workbench.metrics.best_runs, approximate randomisation over documents, Holm-adjusted);
  the best run is named;
- does not separate them: every run with a value is the best or not significantly different
  from it; what the runs differ by on it is within its uncertainty;
- the same for every run: one value across the runs (its figure panel is left out too);
- a reference wins: `suppress` or `label` (no pseudonym at all) is the best run on a utility
  measure. The sentence says what the measure rewards (its definition), so that nobody reads it
  as the best pseudonymisation.

Privacy, per attacker shown in the privacy table: the run with the lowest TRIR and whether its
95 % interval overlaps every other run's (then the attacker cannot tell the runs apart), and an
attacker named weak (workbench.reports.privacy.weak_attackers).
"""

from __future__ import annotations

import math

import pandas as pd

from workbench.metrics.base import HIGHER, LOWER
from workbench.metrics.best_runs import BEST, MARK, TIED
from workbench.metrics.intervals import HIGH, LOW

# Reference runs that write no pseudonym: a utility measure on which one of them is best rewards
# something else than a good pseudonym (the `original` run is the ceiling of every utility measure).
NO_PSEUDONYM = ("suppress", "label")


def conclusions(table: pd.DataFrame) -> list[str]:
    """Markdown bullet lines: per corpus and language, what the measures say and how sure; then the
    privacy side where the table has it (reports.privacy.with_privacy: TRIR columns, attrs["weak"])."""
    from workbench.metrics import metric_infos
    from workbench.metrics.metric_frame import run_rows
    from workbench.metrics.run_names import run_names
    from workbench.reports.tables import TABLES
    infos = metric_infos()
    # Each measure as its table heads it: the spanning header and the column's ("PII overlap % part.").
    headed = {c.metric: " ".join(p for p in (c.group, c.header.rstrip("↑↓ ")) if p)
              for spec in TABLES for c in spec.columns}
    scale = {c.metric: c.scale for spec in TABLES for c in spec.columns}
    utility = [m for m in headed if m in table and m in infos and infos[m].better in (HIGHER, LOWER)]
    runs = table.loc[run_rows(table)]  # the Original pseudo-rows left out
    names = run_names(runs)
    lines = []
    for (corpus, lang), rows in runs.groupby(["corpus", "lang"], sort=False):
        where = f"**{corpus}** ({lang}, {len(rows)} run{'' if len(rows) == 1 else 's'})"
        if len(rows) < 2:
            lines.append(f"- {where}: one run, nothing to compare it with.")
            continue
        separate, within, same, reference_wins = [], [], [], []
        for metric in utility:
            values = rows[metric].dropna()
            if len(values) < 2:
                continue
            label = headed[metric]
            if values.nunique() == 1:
                same.append(f"{label} ({values.iloc[0] * scale[metric]:.3g})")
                continue
            best = values.idxmax() if infos[metric].better == HIGHER else values.idxmin()
            marks = rows.loc[values.index, metric + MARK] if metric + MARK in rows else None
            if marks is None or not (marks == BEST).any():
                continue  # no per-unit values, so no test: the table shows the figure alone
            if (~marks.isin([BEST, TIED])).any():
                separate.append(f"{label} (best: {names[best]})")
            else:
                within.append(label)
            generator = rows.at[best, "generator"]
            if generator in NO_PSEUDONYM and marks.get(best) == BEST:
                reference_wins.append(f"{label}: `{generator}` is best, though it writes no pseudonym; "
                                      f"the measure is the {infos[metric].description}")
        parts = []
        if separate:
            parts.append("separate the runs beyond their uncertainty: " + "; ".join(separate))
        if within:
            parts.append("do not separate them (no run significantly worse than the best): " + ", ".join(within))
        if same:
            parts.append("read the same for every run: " + ", ".join(same))
        lines.append(f"- {where}: " + ("; ".join(parts) if parts else "no measure with a test to compare them by")
                     + ".")
        lines += [f"  - {text}." for text in reference_wins]
    return lines + privacy_conclusions(runs, table.attrs.get("weak", {}), names)


def privacy_conclusions(runs: pd.DataFrame, weak: dict[str, str], names: pd.Series) -> list[str]:
    """Per corpus and attacker with a stored TRIR: the safest run and whether the attacker tells
    the runs apart (the 95 % intervals of the lowest and the others overlap or not)."""
    from workbench.privacy.attackers import ATTACKERS
    from workbench.privacy.background import SHIPPED_BACKGROUND
    from workbench.reports.privacy import WEAK_BELOW
    lines = []
    trir = [f"trir_{a}" for a in ATTACKERS if f"trir_{a}" in runs]
    for corpus, rows in runs.groupby("corpus", sort=False):  # a corpus without any TRIR says why
        if not any(rows[c].notna().any() for c in trir):
            base = str(corpus).split(":")[0]  # "tab-test:16docs" is attacked with tab-test's background
            why = ("no re-identification attack stored for its runs: `workbench privacy reid RUN... --attacker "
                   "retrieval` stores one with the background knowledge it ships" if base in SHIPPED_BACKGROUND else
                   "no re-identification figure: the corpus ships no background knowledge to attack with "
                   "(`workbench privacy reid RUN... --background FILE` with one you bring; docs/privacy.md)")
            lines.append(f"- **{corpus}**: {why}.")
    for attacker in ATTACKERS:
        column = f"trir_{attacker}"
        if column not in runs:
            continue
        for corpus, rows in runs.groupby("corpus", sort=False):
            values = rows[column].dropna()
            if values.empty:
                continue
            safest = values.idxmin()
            text = f"- **{corpus}**, {attacker} re-identification: TRIR {values.min():.3f} ({names[safest]}) to " \
                   f"{values.max():.3f} over {len(values)} run{'' if len(values) == 1 else 's'}"
            low, high = rows.get(column + LOW), rows.get(column + HIGH)
            if len(values) > 1 and low is not None and high is not None:
                others = [r for r in values.index if r != safest]
                apart = [r for r in others if not _overlap(high[safest], low[r])]
                text += ("; the attacker cannot tell the runs apart (every 95 % interval overlaps the lowest's)"
                         if not apart else f"; {len(apart)} of {len(others)} others clearly riskier")
            lines.append(text + ".")
    for attacker, where in weak.items():
        lines.append(f"- The {attacker} attacker is weak ({where}, below {WEAK_BELOW:g} on the original text): its "
                     "TRIR understates the risk of every run.")
    return lines


def _overlap(safest_high: float, other_low: float) -> bool:
    """Whether the lowest run's interval reaches the other's (NaN: no interval, so no claim)."""
    if math.isnan(safest_high) or math.isnan(other_low):
        return True
    return other_low <= safest_high


def conclusions_markdown(table: pd.DataFrame) -> str:
    """The block at the top of report.md (table: the report's table with the privacy measures)."""
    lines = conclusions(table)
    return "\n".join(["## What you can conclude", "",
                      "Computed from the numbers below (docs/metrics.md, \"Uncertainty\"): `*` best, `†` not "
                      "significantly different from the best.", "", *lines, ""])
