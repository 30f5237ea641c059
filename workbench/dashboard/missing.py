"""What a page says instead of a column of "–": that the measure was not computed, and how to compute it.

A metric family the sidebar did not ask for is "not computed" (tick it under Metric families);
a privacy measure no attack stored is "not computed" with the `workbench privacy` command that
stores it, naming the runs that lack it; a re-identification attack only for runs of a corpus
that ships background knowledge (tab-test), since `privacy reid` refuses any other without
`--background FILE` (issue 42: the page suggested it for PGV-PII runs, where it fails). A column
computed for no shown run is left out of the table and named in the note; a "–" that stays means
the measure has no value for that row (an Original row, a run the measure does not apply to).
"""

from __future__ import annotations

import dataclasses

import pandas as pd

from workbench.metrics.metric_frame import run_rows


def _privacy_measures() -> tuple[dict[str, str], dict[str, str]]:
    """The command that stores each privacy measure (reports.privacy reads what they stored) and its
    name, read from the attackers' registries, so a new attacker needs no line here."""
    from workbench.privacy.inference_attacks.inference_attackers import REGISTRY as INFERENCE
    from workbench.privacy.reid_attacks.attackers import REGISTRY as REID
    commands, names = {}, {}
    for attacker in REID.names():
        commands[f"trir_{attacker}"] = commands[f"rank_le_k_{attacker}"] = \
            f"workbench privacy reid {{runs}} --attacker {attacker}"
        names[f"trir_{attacker}"], names[f"rank_le_k_{attacker}"] = f"TRIR ({attacker})", f"rank ≤ k ({attacker})"
    for attacker in INFERENCE.names():
        commands[f"disclosure_{attacker}"] = f"workbench privacy infer {{runs}} --attacker {attacker}"
        names[f"disclosure_{attacker}"] = f"inference disclosure ({INFERENCE.load(attacker).model_kind})"
    return commands, names


PRIVACY_COMMANDS, PRIVACY_NAMES = _privacy_measures()


def family_hint(family: str) -> str:
    return f"tick `{family}` under Metric families in the sidebar"


def _run_ids(table: pd.DataFrame, rows) -> str:
    return " ".join(dict.fromkeys(table.loc[rows, "stored_run"]))


def privacy_note(table: pd.DataFrame, metric: str) -> str | None:
    """"TRIR (retrieval): not computed — run `workbench privacy reid IDS --attacker retrieval`",
    naming the runs without a stored value; None where every run has one. A re-identification
    measure of runs whose corpus ships no background knowledge gets no command that would fail,
    but what the attack needs."""
    real = run_rows(table)
    lacking = [i for i in real if metric not in table.columns or pd.isna(table.at[i, metric])]
    if not lacking:
        return None
    scope = "" if len(lacking) == len(real) else f" for {len(lacking)} of {len(real)} runs"
    command = PRIVACY_COMMANDS[metric]
    attackable, without = lacking, []
    if command.startswith("workbench privacy reid"):
        from workbench.privacy.reid_attacks.background import shipped_background
        attackable = [i for i in lacking if shipped_background(str(table.at[i, "corpus"])) is not None]
        without = [i for i in lacking if i not in attackable]
    says = []
    if attackable:
        says.append(f"run `{command.format(runs=_run_ids(table, attackable))}`")
    if without:
        corpora = ", ".join(dict.fromkeys(str(c) for c in table.loc[without, "corpus"]))
        says.append(f"{corpora} ship{'s' if ', ' not in corpora else ''} no background knowledge to attack with "
                    f"(`--background FILE` with one you bring: docs/privacy.md)")
    return f"{PRIVACY_NAMES[metric]}: not computed{scope} — " + "; ".join(says)


def shown_spec(table: pd.DataFrame, spec, families) -> tuple[object, list[str]]:
    """The table spec without its columns that were computed for no row, and a note for each
    measure not computed (grouped by metric family, one line per privacy command)."""
    from workbench.metrics import metric_infos
    infos = metric_infos()
    from workbench.reports.figure_style import TITLES
    kept = []
    by_family: dict[str, list[str]] = {}
    by_command: dict[str, list[str]] = {}
    for column in spec.columns:
        empty = column.metric not in table.columns or table[column.metric].isna().all()
        if column.metric in PRIVACY_COMMANDS:
            note = privacy_note(table, column.metric)
            if note:  # one line per command: TRIR and rank ≤ k come from the same attack
                name, _, rest = note.partition(": ")
                by_command.setdefault(rest, []).append(name)
        elif empty and column.metric in infos and infos[column.metric].family not in families:
            label = TITLES.get(column.metric, infos[column.metric].label)
            by_family.setdefault(infos[column.metric].family, []).append(label)
        if not empty:
            kept.append(column)
    notes = [f"{', '.join(labels)}: not computed — {family_hint(family)}" for family, labels in by_family.items()]
    notes += [f"{', '.join(names)}: {rest}" for rest, names in by_command.items()]
    return dataclasses.replace(spec, columns=tuple(kept)), notes


def families_not_computed(all_families, families) -> str | None:
    """The "All metrics" tab's note: the families the sidebar left out."""
    left = [f for f in all_families if f not in families]
    if not left:
        return None
    return f"Not computed: {', '.join(left)} — tick them under Metric families in the sidebar."


def no_trir_note(table: pd.DataFrame) -> str:
    """The privacy figure's note where no selected run has a stored TRIR: the command for the runs of
    a corpus that ships background knowledge, what the others need."""
    what = (privacy_note(table, "trir_retrieval") or "").split(" — ", 1)[-1]
    return f"No selected run has a stored TRIR: {what}."

