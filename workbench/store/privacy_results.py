"""The tables of per-run attack results in the run store (reid_results, inference_results,
migration 3): how their rows are written and read.

Each result module (workbench.privacy.reid_attacks.reid_store, .inference_store) keeps its own row type
and declares its table here with ResultTable.of; the SQL is this module's.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

import pandas as pd


@dataclass(frozen=True)
class ResultTable:
    name: str  # the SQLite table
    columns: tuple[str, ...]  # its columns, in the row type's field order
    order: tuple[str, ...]  # how rows_frame sorts them

    @classmethod
    def of(cls, name: str, row_type, order: tuple[str, ...]) -> ResultTable:
        return cls(name, tuple(f.name for f in fields(row_type)), order)

    def save_rows(self, store, rows: list) -> None:
        """One transaction: a batch lands whole or not at all (a stale row, of another input, is replaced)."""
        if rows:
            insert = (f"INSERT OR REPLACE INTO {self.name} ({', '.join(self.columns)}) "
                      f"VALUES ({', '.join(':' + c for c in self.columns)})")
            with store.transaction() as db:
                db.executemany(insert, [asdict(r) for r in rows])

    def rows_frame(self, store, run_ids: list[str] | None = None,
                   attack_key: str | None = None) -> pd.DataFrame:
        """Stored rows as a frame: all runs, or these run ids; all attack keys, or this one."""
        where, args = [], []
        if run_ids is not None:
            if not run_ids:
                return pd.DataFrame(columns=list(self.columns))
            where.append(f"run_id IN ({', '.join('?' * len(run_ids))})")
            args.extend(run_ids)
        if attack_key is not None:
            where.append("attack_key=?")
            args.append(attack_key)
        sql = f"SELECT {', '.join(self.columns)} FROM {self.name}"
        if where:
            sql += " WHERE " + " AND ".join(where)
        rows = store.db.execute(f"{sql} ORDER BY {', '.join(self.order)}", args).fetchall()
        return pd.DataFrame(rows, columns=list(self.columns))

    def attack_rows(self, store, run_id: str, attack_key: str, columns: tuple[str, ...] | None = None,
                    results_only: bool = False) -> list[tuple]:
        """The stored rows of one run under one attack key: every column, or these; with
        results_only, rows with a note (no result: asked again next time) are left out."""
        sql = (f"SELECT {', '.join(columns or self.columns)} FROM {self.name} WHERE run_id=? AND attack_key=?"
               + (" AND note=''" if results_only else ""))
        return store.db.execute(sql, (run_id, attack_key)).fetchall()
