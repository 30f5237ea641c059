"""Runs hidden on the dashboard (table `hidden_runs`, migration 6): one row per hidden run.

Hiding is a matter of what the dashboard offers, not of what a run is: the run, its
signature and its results are untouched, `workbench runs` and reports still see it, and
unhiding brings it back as it was. A deleted run takes its row with it
(workbench.store.run_deletion).
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from workbench.infra.errors import WorkbenchError


def hidden_runs(store) -> set[str]:
    """The ids of the hidden runs."""
    return {r for r, in store.db.execute("SELECT run_id FROM hidden_runs")}


def set_hidden(store, run_ids: Iterable[str], hidden: bool = True) -> int:
    """Hide (or unhide) the runs, by exact id, in one transaction; returns how many changed."""
    ids = list(dict.fromkeys(run_ids))
    with store.transaction() as db:
        unknown = [r for r in ids if not db.execute("SELECT 1 FROM runs WHERE run_id=?", (r,)).fetchone()]
        if unknown:
            raise WorkbenchError(f"no run {', '.join(unknown)} in {store.path}")
        if hidden:
            return sum(db.execute("INSERT OR IGNORE INTO hidden_runs (run_id, hidden) VALUES (?,?)",
                                  (r, time.time())).rowcount for r in ids)
        return sum(db.execute("DELETE FROM hidden_runs WHERE run_id=?", (r,)).rowcount for r in ids)
