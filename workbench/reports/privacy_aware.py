"""The method-aware attacks beside the method-blind ones in the privacy table (issue 39 item 2).

An attacker that knows the method (workbench.privacy.reid_attacks.method_aware, `workbench privacy reid
--method-aware`) is stored as `<attacker>+method` under a key of its own per run (the key hashes the
run's method). For each method-blind attacker the table shows, a run's method-aware counterpart is
the attack of `<attacker>+method` over the same background with the same settings (the stored
settings but the method); where a run was attacked under several methods (an imported run, whose
method the user names: suppress, label …), the strongest is shown, since the attacker would try
each. Beside it, the difference aware − blind: what the method's secrecy is worth to that run
(positive: the blind figure understates the risk by that much; an evaluation should not rely on it).

The headline (reports.privacy.HEADLINE) takes these attacks into its ensemble for the runs that have
them: an attacker who knows the method is the standard assumption (Kerckhoffs), so a run's headline
is the share of documents any blind or method-aware attack over the headline's background ranks
first; the caption says which runs it includes them for.
"""

from __future__ import annotations

import json

import pandas as pd

# workbench.privacy.reid_attacks.method_aware.SUFFIX (not imported: that module loads the generators)
SUFFIX = "+method"


def aware_measure(attacker: str) -> str:
    """The column of an attacker's method-aware TRIR: trir_retrieval_aware."""
    return f"trir_{attacker}_aware"


def secrecy_measure(attacker: str) -> str:
    """The column of aware − blind TRIR: secrecy_retrieval."""
    return f"secrecy_{attacker}"


def blind_settings(settings: str) -> str:
    """A stored attack's settings (JSON) without the method it knew, in one spelling."""
    values = json.loads(settings)
    values.pop("method_aware", None)
    return json.dumps(values, sort_keys=True)


def aware_counterparts(reid: pd.DataFrame, attacker: str, blind_key: str) -> pd.DataFrame:
    """One row per run (index run_id) of the stored method-aware attacks (the metrics frame of
    reid.stored_reid_risk, complete attacks) that pair with the blind attack `blind_key`:
    `<attacker>+method` over its background with its settings; a run's strongest where it has several
    (ties: by key, so the choice never depends on storage order)."""
    blind = reid[reid["attack_key"] == blind_key]
    aware = reid[reid["attacker"] == attacker + SUFFIX]
    if blind.empty or aware.empty:
        return aware.iloc[0:0].set_index("run_id")
    first = blind.iloc[0]
    same = (aware["background"] == first["background"]) & (aware["background_share"] == first["background_share"])
    aware = aware[same]
    wanted = blind_settings(first["settings"])
    aware = aware[[blind_settings(s) == wanted for s in aware["settings"]]]
    aware = aware.sort_values(["run_id", "trir", "attack_key"], ascending=[True, False, True], kind="stable")
    return aware.drop_duplicates("run_id").set_index("run_id")


def aware_caption(aware_keys: dict[str, dict[str, str]]) -> str:
    """The caption's part on them: "method-aware=retrieval+method 2 runs (95ef596b:retrieval+method-…; …)"."""
    if not aware_keys:
        return ""
    parts = [f"{a}{SUFFIX} {len(runs)} run{'s' if len(runs) != 1 else ''} ("
             + "; ".join(f"{run[:8]}:{key}" for run, key in runs.items()) + ")"
             for a, runs in aware_keys.items()]
    return ("|method-aware=" + ", ".join(parts) + ": the attacker that knows the run's method (the strongest of the "
            "methods tried per run), Δ = aware − blind TRIR, what the method's secrecy is worth")
