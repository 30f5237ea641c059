"""Per-document re-identification results in the run store (table reid_results, migration 3).

One row per (run, attack key, document): which individual the document is about, how many
candidates the attacker scored above it (n_higher) and level with it (n_tied), and the
hash of the attacked text, so a row is reused only for exactly the text it was computed
on. Rows are written a batch per transaction (an interrupted attack resumes at the next
batch); reading never writes.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

import pandas as pd

from workbench.store import RunStore
from workbench.store.privacy_results import ResultTable


@dataclass(frozen=True, slots=True)
class ReidRow:
    run_id: str
    attack_key: str
    doc_id: str
    attacker: str  # retrieval | trained
    config: str  # JSON: the attacker's settings, as in the attack key
    background: str  # file name @ start of its sha256
    background_sha256: str
    text_sha256: str  # of the pseudonymised document that was attacked
    individual: str | None  # the document's individual; None: not in the background
    n_higher: int | None  # candidates scored above the true individual
    n_tied: int | None  # other candidates scored exactly as high
    n_candidates: int
    top_guess: str | None  # the attacker's first choice
    created: float


TABLE = ResultTable.of("reid_results", ReidRow, order=("run_id", "attack_key", "doc_id"))
COLUMNS = TABLE.columns


def stored_rows(store: RunStore, run_id: str, attack_key: str) -> dict[str, ReidRow]:
    """doc_id -> the stored row of this run under this attack key."""
    return {r[2]: ReidRow(*r) for r in TABLE.attack_rows(store, run_id, attack_key)}


def save_rows(store: RunStore, rows: list[ReidRow]) -> None:
    """One transaction: a batch lands whole or not at all (a stale row, of another text, is replaced)."""
    TABLE.save_rows(store, rows)


def rows_frame(store: RunStore, run_ids: list[str] | None = None, attack_key: str | None = None) -> pd.DataFrame:
    """Stored rows as a frame (all runs, or these run ids; all attack keys, or this one)."""
    return TABLE.rows_frame(store, run_ids, attack_key)


def new_row(run_id: str, attack_key: str, doc_id: str, attacker: str, config: dict, background: str,
            background_sha256: str, text_sha256: str, individual: str | None, n_higher: int | None,
            n_tied: int | None, n_candidates: int, top_guess: str | None) -> ReidRow:
    return ReidRow(run_id, attack_key, doc_id, attacker, json.dumps(config, sort_keys=True), background,
                   background_sha256, text_sha256, individual, n_higher, n_tied, n_candidates, top_guess, time.time())
