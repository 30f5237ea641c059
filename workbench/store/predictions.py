"""Predictions in the store (table predictions): one row per (run, document, span), the
pseudonym a run chose and how (candidates, rank, UPOS, failure, time).

A batch is one transaction: it lands whole or not at all, which is what makes an
interrupted run resumable without loss or duplicates. PredictionRepository is one part of
RunStore (workbench.store): its methods use the guarded file's `db` and `transaction()`
(workbench.store.file.StoreFile).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable

from workbench.infra.errors import WorkbenchError
from workbench.store.file import FileParts, reported
from workbench.store.records import (
    PREDICTION_COLUMNS,
    RUNNING,
    StoredPrediction,
    insert_sql,
    prediction_row,
    quoted_columns,
)
from workbench.store.signature import GENERATED


def _check_storable(row: dict) -> None:
    """SQLite stores UTF-8: a lone surrogate (half a UTF-16 pair, e.g. from a JSON "\\ud83d"
    escape in a server's reply) cannot be stored; say where instead of a UnicodeEncodeError."""
    for name, value in row.items():
        if not isinstance(value, str):
            continue
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise WorkbenchError(f"run {row['run_id']}, document {row['doc_id']}, span {row['span_index']}: the "
                                 f"{name} holds a lone surrogate (half of a UTF-16 pair), which cannot be stored; "
                                 "nothing of this batch was written") from None


class PredictionRepository(FileParts):
    @reported
    def add_predictions(self, run_id: str, predictions: Iterable[StoredPrediction]) -> None:
        """One transaction; a (run, document, span) stored twice is an error, never a silent overwrite."""
        rows = [prediction_row(run_id, p) for p in predictions]
        for row in rows:  # checked before the transaction: a batch lands whole or not at all
            _check_storable(row)
        with self.transaction() as db:
            db.executemany(insert_sql("predictions", PREDICTION_COLUMNS), rows)
            if run_id in self._lease_runs:
                db.execute("UPDATE run_leases SET heartbeat=? WHERE run_id=?", (time.time(), run_id))

    @reported
    def predictions(self, run_id: str) -> list[StoredPrediction]:
        names = PREDICTION_COLUMNS[1:]
        out = []
        for row in self.db.execute(f"SELECT {quoted_columns(names)} FROM predictions WHERE run_id=? "
                                   "ORDER BY doc_id, span_index", (run_id,)):
            values = dict(zip(names, row))
            fallback = values["upos_fallback"]
            values.update(candidates=tuple(json.loads(values["candidates"])), failed=bool(values["failed"]),
                          upos_fallback=None if fallback is None else bool(fallback))
            out.append(StoredPrediction(**values))
        return out

    @reported
    def count_predictions(self, run_id: str, failed: bool | None = None) -> int:
        """How many predictions the run has stored (only failed ones, or only successful ones, if asked)."""
        if failed is None:
            return self.db.execute("SELECT COUNT(*) FROM predictions WHERE run_id=?", (run_id,)).fetchone()[0]
        return self.db.execute("SELECT COUNT(*) FROM predictions WHERE run_id=? AND failed=?",
                               (run_id, int(failed))).fetchone()[0]

    @reported
    def delete_failed_predictions(self, run_id: str) -> int:
        """Forget the run's FAILED spans and mark it running, so resuming generates them again.

        Returns how many were deleted; with none, the run's status is left as it was."""
        with self.transaction() as db:
            deleted = db.execute("DELETE FROM predictions WHERE run_id=? AND failed=1", (run_id,)).rowcount
            if deleted:
                db.execute("UPDATE runs SET status=?, finished=NULL WHERE run_id=?", (RUNNING, run_id))
        return deleted

    @reported
    def spans_per_second(self) -> dict[str, float]:
        """Per generator, the spans its generated runs stored per second of generation time (the
        `seconds` each prediction records): what a benchmark plan estimates its time from."""
        rows = self.db.execute(
            "SELECT r.generator, COUNT(*), SUM(p.seconds) FROM predictions p JOIN runs r ON r.run_id = p.run_id "
            "WHERE r.source = ? GROUP BY r.generator", (GENERATED,))
        return {name: n / total for name, n, total in rows if n and total and total > 0}

    @reported
    def has_prediction(self, run_id: str, doc_id: str, span_index: int) -> bool:
        return self.db.execute("SELECT 1 FROM predictions WHERE run_id=? AND doc_id=? AND span_index=?",
                               (run_id, doc_id, span_index)).fetchone() is not None

    def done_keys(self, run_id: str) -> set[tuple[str, int]]:
        return set(self.db.execute("SELECT doc_id, span_index FROM predictions WHERE run_id=?", (run_id,)).fetchall())
