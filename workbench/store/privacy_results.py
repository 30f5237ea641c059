"""One table of per-run attack results in the run store (reid_results, inference_results):
how its rows are written and read. Each result module keeps its own row type and columns."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

import pandas as pd

from workbench.store import RunStore


@dataclass(frozen=True)
class ResultTable:
    name: str  # the SQLite table
    columns: tuple[str, ...]  # its columns, in the row type's field order
    order: tuple[str, ...]  # how rows_frame sorts them

    @classmethod
    def of(cls, name: str, row_type, order: tuple[str, ...]) -> "ResultTable":
        return cls(name, tuple(f.name for f in fields(row_type)), order)

    def save_rows(self, store: RunStore, rows: list) -> None:
        """One transaction: a batch lands whole or not at all (a stale row, of another input, is replaced)."""
        if rows:
            insert = (f"INSERT OR REPLACE INTO {self.name} ({', '.join(self.columns)}) "
                      f"VALUES ({', '.join(':' + c for c in self.columns)})")
            with store.transaction() as db:
                db.executemany(insert, [asdict(r) for r in rows])

    def rows_frame(self, store: RunStore, run_ids: list[str] | None = None,
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
