"""Reports stored with a run (table `run_reports`, migration 3): one JSON body per (run, kind).

Kinds written by the workbench:
    alignment   how an imported file was aligned to the corpus (workbench.exchange.alignment):
                counts of matched, folded, deduplicated, left-over entries and spans
    reference   what a reference anonymisation did (workbench.exchange.reference)
    review      what a review changed (workbench.exchange.review_import): the parent run, the
                reviewer, and each revision's document, span, label, pseudonym before and after
    known-pair  the known-pair attack's counts per label and kind (workbench.privacy.known_pair_runs);
                known-pair+background: the same with only the pairs a background text states
`RunStore.delete_run` deletes a run's reports with it.
"""

from __future__ import annotations

import json
import time

ALIGNMENT, REFERENCE, REVIEW = "alignment", "reference", "review"


def save_run_report(store, run_id: str, kind: str, body: dict) -> None:
    """Store (or replace) the run's report of this kind, in one transaction."""
    text = json.dumps(body, ensure_ascii=False, sort_keys=True)
    with store.transaction() as db:
        db.execute("INSERT OR REPLACE INTO run_reports (run_id, kind, created, body) VALUES (?,?,?,?)",
                   (run_id, kind, time.time(), text))


def run_report(store, run_id: str, kind: str) -> dict | None:
    row = store.db.execute("SELECT body FROM run_reports WHERE run_id=? AND kind=?", (run_id, kind)).fetchone()
    return None if row is None else json.loads(row[0])


def run_reports(store, run_id: str) -> dict[str, dict]:
    """Every report of the run, by kind."""
    return {kind: json.loads(body) for kind, body in store.db.execute(
        "SELECT kind, body FROM run_reports WHERE run_id=? ORDER BY kind", (run_id,))}
