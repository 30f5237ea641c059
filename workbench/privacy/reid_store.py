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
from dataclasses import asdict, dataclass, fields

import pandas as pd

from workbench.store import RunStore


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


COLUMNS = tuple(f.name for f in fields(ReidRow))
_INSERT = (f"INSERT OR REPLACE INTO reid_results ({', '.join(COLUMNS)}) "
           f"VALUES ({', '.join(':' + c for c in COLUMNS)})")


def stored_rows(store: RunStore, run_id: str, attack_key: str) -> dict[str, ReidRow]:
    """doc_id -> the stored row of this run under this attack key."""
    cur = store.db.execute(f"SELECT {', '.join(COLUMNS)} FROM reid_results WHERE run_id=? AND attack_key=?",
                           (run_id, attack_key))
    return {r[2]: ReidRow(*r) for r in cur.fetchall()}


def save_rows(store: RunStore, rows: list[ReidRow]) -> None:
    """One transaction: a batch lands whole or not at all (a stale row, of another text, is replaced)."""
    if rows:
        with store.transaction() as db:
            db.executemany(_INSERT, [asdict(r) for r in rows])


def rows_frame(store: RunStore, run_ids: list[str] | None = None, attack_key: str | None = None) -> pd.DataFrame:
    """Stored rows as a frame (all runs, or these run ids; all attack keys, or this one)."""
    where, args = [], []
    if run_ids is not None:
        if not run_ids:
            return pd.DataFrame(columns=list(COLUMNS))
        where.append(f"run_id IN ({', '.join('?' * len(run_ids))})")
        args.extend(run_ids)
    if attack_key is not None:
        where.append("attack_key=?")
        args.append(attack_key)
    sql = f"SELECT {', '.join(COLUMNS)} FROM reid_results"
    if where:
        sql += " WHERE " + " AND ".join(where)
    rows = store.db.execute(sql + " ORDER BY run_id, attack_key, doc_id", args).fetchall()
    return pd.DataFrame(rows, columns=list(COLUMNS))


def new_row(run_id: str, attack_key: str, doc_id: str, attacker: str, config: dict, background: str,
            background_sha256: str, text_sha256: str, individual: str | None, n_higher: int | None,
            n_tied: int | None, n_candidates: int, top_guess: str | None) -> ReidRow:
    return ReidRow(run_id, attack_key, doc_id, attacker, json.dumps(config, sort_keys=True), background,
                   background_sha256, text_sha256, individual, n_higher, n_tied, n_candidates, top_guess, time.time())
