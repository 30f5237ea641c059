"""Error annotations in the run store: who gave which tag to which pseudonym.

The tables live in the same SQLite file as the runs they annotate, and in the same
versioned schema (workbench/store/schema.py: one user_version, one migration sequence):

    annotations         the current tag per (run, document, span, annotator)
    annotation_log      every save ever made, append-only: an overwrite loses nothing
    annotation_samples  which spans a session annotates, in which order (see sampling)

Concurrency: every annotator (a dashboard session, an import, a doccano pull) holds its
own connection; each save is one BEGIN IMMEDIATE transaction, and SQLite's busy timeout
(workbench.store.BUSY_TIMEOUT_S) makes a second writer wait instead of failing. Different
annotators write different rows, so two people saving at the same moment both keep
their work; the same annotator saving twice keeps the later tag and both log entries.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterable, Sequence

from workbench.annotation.tagset import Tagset, load_tagset
from workbench.errors import WorkbenchError
from workbench.store import RunStore


SOURCES = ("dashboard", "jsonl", "doccano", "api")


@dataclass(frozen=True, slots=True)
class Annotation:
    run_id: str
    doc_id: str
    span_index: int
    annotator: str
    tag: str
    note: str = ""
    source: str = "api"  # where the tag was made: one of SOURCES
    updated: float = 0.0  # seconds since the epoch; set when stored

    @property
    def item(self) -> tuple[str, str, int]:
        return (self.run_id, self.doc_id, self.span_index)


@dataclass(frozen=True, slots=True)
class SampleItem:
    run_id: str
    doc_id: str
    span_index: int


def _check_annotator(name: str) -> str:
    name = (name or "").strip()
    if not name:
        raise WorkbenchError("an annotation needs an annotator name")
    if len(name) > 64 or any(c in name for c in "\n\t/\\"):
        raise WorkbenchError(f"annotator name {name!r}: at most 64 characters, no slashes, tabs or newlines")
    return name


class AnnotationStore:
    """Annotation access over one run store; open one per annotator/thread/process."""

    def __init__(self, store: RunStore | str | Path, tagset: Tagset | None = None) -> None:
        self.run_store = store if isinstance(store, RunStore) else RunStore(store)
        self._owns = not isinstance(store, RunStore)
        self.tagset = tagset or load_tagset()
        self.db = self.run_store.db

    def close(self) -> None:
        if self._owns:
            self.run_store.close()

    # -- validation ------------------------------------------------------------------
    def _check(self, a: Annotation, where: str = "") -> Annotation:
        prefix = f"{where}: " if where else ""
        if a.tag not in self.tagset:
            raise WorkbenchError(f"{prefix}run {a.run_id[:12]}, document {a.doc_id}, span {a.span_index}: unknown tag "
                                 f"{a.tag!r} (tagset {self.tagset.name}: {', '.join(self.tagset.names)})")
        if a.source not in SOURCES:
            raise WorkbenchError(f"{prefix}unknown annotation source {a.source!r} (known: {', '.join(SOURCES)})")
        if not self.db.execute("SELECT 1 FROM predictions WHERE run_id=? AND doc_id=? AND span_index=?",
                               (a.run_id, a.doc_id, a.span_index)).fetchone():
            raise WorkbenchError(f"{prefix}run {a.run_id[:12]}, document {a.doc_id}, span {a.span_index}: no such "
                                 f"pseudonym in {self.run_store.path}")
        return replace(a, annotator=_check_annotator(a.annotator), note=(a.note or "").strip())

    # -- writing ---------------------------------------------------------------------
    def save(self, annotation: Annotation) -> Annotation:
        return self.save_many([annotation])[0]

    def save_many(self, annotations: Sequence[Annotation], where: Sequence[str] | None = None) -> list[Annotation]:
        """All or nothing, in one transaction; `where` names each input (file:line) for errors."""
        checked = [self._check(a, where[i] if where else "") for i, a in enumerate(annotations)]
        now = time.time()
        stored = [replace(a, updated=now) for a in checked]
        with self.run_store.transaction() as db:
            db.executemany(
                "INSERT INTO annotations (run_id, doc_id, span_index, annotator, tag, note, source, created, updated) "
                "VALUES (?,?,?,?,?,?,?,?,?) "
                "ON CONFLICT (run_id, doc_id, span_index, annotator) DO UPDATE SET "
                "tag=excluded.tag, note=excluded.note, source=excluded.source, updated=excluded.updated",
                [(a.run_id, a.doc_id, a.span_index, a.annotator, a.tag, a.note, a.source, now, now) for a in stored])
            db.executemany(
                "INSERT INTO annotation_log (run_id, doc_id, span_index, annotator, tag, note, source, saved) "
                "VALUES (?,?,?,?,?,?,?,?)",
                [(a.run_id, a.doc_id, a.span_index, a.annotator, a.tag, a.note, a.source, now) for a in stored])
        return stored

    # -- reading ---------------------------------------------------------------------
    def annotations(self, run_ids: Iterable[str] | None = None, annotators: Iterable[str] | None = None
                    ) -> list[Annotation]:
        sql, args = ("SELECT run_id, doc_id, span_index, annotator, tag, note, source, updated FROM annotations", [])
        where = []
        if run_ids is not None:
            ids = list(run_ids)
            where.append(f"run_id IN ({','.join('?' * len(ids))})")
            args += ids
        if annotators is not None:
            names = list(annotators)
            where.append(f"annotator IN ({','.join('?' * len(names))})")
            args += names
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY run_id, doc_id, span_index, annotator"
        return [Annotation(*row) for row in self.db.execute(sql, args)]

    def get(self, item: tuple[str, str, int], annotator: str) -> Annotation | None:
        row = self.db.execute(
            "SELECT run_id, doc_id, span_index, annotator, tag, note, source, updated FROM annotations "
            "WHERE run_id=? AND doc_id=? AND span_index=? AND annotator=?", (*item, annotator)).fetchone()
        return Annotation(*row) if row else None

    def annotators(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT DISTINCT annotator FROM annotations ORDER BY annotator")]

    def log_size(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM annotation_log").fetchone()[0]

    # -- samples ---------------------------------------------------------------------
    def create_sample(self, name: str, items: Sequence[SampleItem], recipe: dict) -> None:
        name = (name or "").strip()
        if not name:
            raise WorkbenchError("a sample needs a name")
        if not items:
            raise WorkbenchError(f"sample {name!r} would be empty")
        with self.run_store.transaction() as db:
            # Checked inside the transaction: another session may create the same name meanwhile.
            if db.execute("SELECT 1 FROM annotation_sample_info WHERE sample=?", (name,)).fetchone():
                raise WorkbenchError(f"a sample named {name!r} already exists in {self.run_store.path}; pick "
                                     "another name")
            db.execute("INSERT INTO annotation_sample_info (sample, recipe, created) VALUES (?,?,?)",
                       (name, json.dumps(recipe, sort_keys=True), time.time()))
            db.executemany("INSERT INTO annotation_samples (sample, position, run_id, doc_id, span_index) "
                           "VALUES (?,?,?,?,?)",
                           [(name, i, it.run_id, it.doc_id, it.span_index) for i, it in enumerate(items)])

    def samples(self) -> list[tuple[str, dict, int]]:
        """(name, recipe, size) of every sample, oldest first."""
        return [(n, json.loads(r), k) for n, r, k in self.db.execute(
            "SELECT i.sample, i.recipe, COUNT(s.position) FROM annotation_sample_info i "
            "LEFT JOIN annotation_samples s ON s.sample=i.sample GROUP BY i.sample ORDER BY i.created")]

    def sample(self, name: str) -> list[SampleItem]:
        items = [SampleItem(*r) for r in self.db.execute(
            "SELECT run_id, doc_id, span_index FROM annotation_samples WHERE sample=? ORDER BY position", (name,))]
        if not items:
            raise WorkbenchError(f"no sample named {name!r} in {self.run_store.path}")
        return items

    def done_positions(self, name: str, annotator: str) -> set[int]:
        return {r[0] for r in self.db.execute(
            "SELECT s.position FROM annotation_samples s JOIN annotations a ON a.run_id=s.run_id AND "
            "a.doc_id=s.doc_id AND a.span_index=s.span_index AND a.annotator=? WHERE s.sample=?", (annotator, name))}

    def resume_position(self, name: str, annotator: str) -> int:
        """Where the annotator stopped: the first item they have not tagged (the size when all are done)."""
        done, size = self.done_positions(name, annotator), len(self.sample(name))
        return next((i for i in range(size) if i not in done), size)
