"""An imported system's own detections (table own_detections, migration 8).

A system with its own detector (spaCy, Presidio, an NER pipeline) replaces text no corpus span
covers. workbench.exchange.alignment (rule 7) keeps those edits apart from the run's predictions:
(doc_id, start, end, replacement) in the original's offsets, outside every span to replace and
disjoint. Span-level metrics never see them; the document as the system wrote it
(workbench.text.replace.pseudonymise with `outside=`) has them, and document-level measures
read that document. `RunStore.delete_run` deletes them with the run (every table with a run_id).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

Edit = tuple[int, int, str]  # (start, end, replacement) in the original document's offsets


def save_own_detections(store, run_id: str, edits: Mapping[str, Sequence[Edit]]) -> None:
    """Store the run's edits outside the corpus spans, by document, in one transaction."""
    rows = [(run_id, doc_id, a, b, text) for doc_id, doc_edits in edits.items() for a, b, text in doc_edits]
    if not rows:
        return
    with store.transaction() as db:
        db.executemany('INSERT INTO own_detections (run_id, doc_id, start, "end", replacement) VALUES (?,?,?,?,?)',
                       rows)


def own_detections(store, run_id: str) -> dict[str, tuple[Edit, ...]]:
    """doc_id -> the run's edits outside the corpus spans, sorted (documents without any absent)."""
    out: dict[str, list[Edit]] = {}
    for doc_id, a, b, text in store.db.execute(
            'SELECT doc_id, start, "end", replacement FROM own_detections WHERE run_id=? ORDER BY doc_id, start',
            (run_id,)):
        out.setdefault(doc_id, []).append((a, b, text))
    return {doc_id: tuple(edits) for doc_id, edits in out.items()}
