"""Runs in the store (tables runs, run_leases): storing, finishing, naming, finding and
deleting runs, and the lease that keeps one generating process per run.

RunRepository is one part of RunStore (workbench.store): its methods use the guarded
file's `db` and `transaction()` (workbench.store.file.StoreFile). Status values are the
constants of workbench.store.records (RUNNING, COMPLETE), in SQL too.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager

from workbench.infra.errors import WorkbenchError
from workbench.store.file import FileParts, reported
from workbench.store.records import (
    COMPLETE,
    RUN_COLUMNS,
    RUNNING,
    RunRecord,
    insert_sql,
    quoted_columns,
    record_of,
    run_row,
)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True



class RunRepository(FileParts):
    @reported
    def create_run(self, record: RunRecord) -> None:
        """Store a new run; a run with the same id (so the same signature) already stored is kept."""
        with self.transaction() as db:
            db.execute(insert_sql("runs", RUN_COLUMNS, "ON CONFLICT (run_id) DO NOTHING"), run_row(record))

    @reported
    def finish_run(self, run_id: str) -> None:
        with self.transaction() as db:
            db.execute("UPDATE runs SET status=?, finished=? WHERE run_id=?", (COMPLETE, time.time(), run_id))

    @reported
    def reopen_run(self, run_id: str) -> None:
        """Mark a run running again (its missing spans will be generated on the next resume)."""
        with self.transaction() as db:
            db.execute("UPDATE runs SET status=?, finished=NULL WHERE run_id=?", (RUNNING, run_id))

    @reported
    def set_run_name(self, run_id: str, name: str | None) -> None:
        """Name (or rename, or with None un-name) a run; the name is not in the signature, so the
        run id stays. A name that is not short, printable text is a WorkbenchError."""
        from workbench.store.run_name_rule import check_run_name
        name = None if name is None else check_run_name(name)
        with self.transaction() as db:
            if db.execute("UPDATE runs SET name=? WHERE run_id=?", (name, run_id)).rowcount == 0:
                raise WorkbenchError(f"no run {run_id} in {self.path}")

    @reported
    def delete_run(self, run_id: str) -> None:
        with self.transaction() as db:
            db.execute("DELETE FROM predictions WHERE run_id=?", (run_id,))
            db.execute("DELETE FROM reid_results WHERE run_id=?", (run_id,))
            db.execute("DELETE FROM inference_results WHERE run_id=?", (run_id,))
            db.execute("DELETE FROM run_reports WHERE run_id=?", (run_id,))
            db.execute("DELETE FROM own_detections WHERE run_id=?", (run_id,))
            db.execute("DELETE FROM runs WHERE run_id=?", (run_id,))

    def _select_runs(self, where: str = "", args: tuple = ()) -> list[RunRecord]:
        rows = self.db.execute(f"SELECT {quoted_columns(RUN_COLUMNS)} FROM runs {where} ORDER BY created, run_id", args)
        return [record_of(r) for r in rows.fetchall()]

    @reported
    def get_run(self, run_id: str) -> RunRecord | None:
        """The run with exactly this id, or None."""
        found = self._select_runs("WHERE run_id=?", (run_id,))
        return found[0] if found else None

    @reported
    def resolve_run(self, prefix: str) -> RunRecord:
        """The one run whose id starts with `prefix` (as typed on the command line).

        Compared as plain text: '_' and '%' are characters like any other, never wildcards."""
        if not prefix:
            raise WorkbenchError(f"an empty run id matches every run in {self.path}; give at least its first "
                                 "characters")
        found = self._select_runs("WHERE substr(run_id, 1, ?) = ?", (len(prefix), prefix))
        if len(found) != 1:
            raise WorkbenchError(f"{'no run' if not found else f'{len(found)} runs'} matching {prefix!r} in "
                                 f"{self.path}" + ("; give more characters of the id" if found else
                                                   "; `workbench runs` lists them"))
        return found[0]

    @reported
    def runs(self) -> list[RunRecord]:
        return self._select_runs()

    # -- run leases: one generating process per run -----------------------------------
    @contextmanager
    def claim_run(self, run_id: str) -> Iterator[None]:
        """Hold the run for this process while it generates; a second process gets a WorkbenchError.

        The lease (pid, host, start, last heartbeat) is a row in run_leases; add_predictions
        refreshes the heartbeat. A lease left by a process that no longer runs on this host
        is taken over; a lease from another host is respected until released."""
        host, pid = socket.gethostname(), os.getpid()
        now = time.time()
        with self.transaction() as db:
            row = db.execute("SELECT pid, host, started FROM run_leases WHERE run_id=?", (run_id,)).fetchone()
            if row is not None and (row[0], row[1]) != (pid, host) and (row[1] != host or _pid_alive(row[0])):
                since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(row[2]))
                raise WorkbenchError(f"run {run_id} is being generated by process {row[0]} on {row[1]} since "
                                     f"{since}; wait for it or stop it")
            db.execute("INSERT OR REPLACE INTO run_leases (run_id, pid, host, started, heartbeat) VALUES (?,?,?,?,?)",
                       (run_id, pid, host, now, now))
        self._lease_runs.add(run_id)
        try:
            yield
        finally:
            self._lease_runs.discard(run_id)
            try:
                with self.transaction() as db:
                    db.execute("DELETE FROM run_leases WHERE run_id=? AND pid=? AND host=?", (run_id, pid, host))
            except WorkbenchError:
                pass  # e.g. the disk is full: the lease of a dead process is taken over later

    @reported
    def lease(self, run_id: str) -> tuple[int, str, float, float] | None:
        """(pid, host, started, heartbeat) of the process generating the run, or None."""
        return self.db.execute("SELECT pid, host, started, heartbeat FROM run_leases WHERE run_id=?",
                               (run_id,)).fetchone()
