"""The server addresses a run was generated with (the runs table's `servers` column, migration 10).

An LLM run's server address (the Ollama host) is recorded, not hashed (issue 37): the run id is
the same at any address, so a run resumed or retried after the server moved to another port
records that address too. RunRecord.servers holds them in the order first used; NULL for runs
of generators without a server and for runs stored before the column.
"""

from __future__ import annotations

import json
from collections.abc import Iterable


def add_servers(store, run_id: str, servers: Iterable[str]) -> None:
    """Record these addresses after the run's own, each once (one transaction; nothing when none is new)."""
    wanted = [s for s in servers if s]
    if not wanted:
        return
    with store.transaction() as db:
        row = db.execute("SELECT servers FROM runs WHERE run_id=?", (run_id,)).fetchone()
        if row is None:
            return
        known = list(json.loads(row[0])) if row[0] else []
        new = [s for s in dict.fromkeys(wanted) if s not in known]
        if new:
            db.execute("UPDATE runs SET servers=? WHERE run_id=?", (json.dumps(known + new), run_id))
