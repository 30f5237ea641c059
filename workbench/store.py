"""The run store: one SQLite file (WAL) holding corpora snapshots, runs and predictions.

Runs are self-contained: the documents and spans they were made from are stored with
them, so reports, exports and the dashboard never need the original corpus file.
Annotation tables belong to workbench.annotation and are created there.

Writes are transactions: a batch of predictions lands whole or not at all, which is
what makes an interrupted run resumable without loss or duplicates.
"""

from __future__ import annotations

import json
import sqlite3
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

from workbench.errors import WorkbenchError
from workbench.model import Corpus, Document, Span

SCHEMA = """
CREATE TABLE IF NOT EXISTS corpora (
    corpus_hash TEXT PRIMARY KEY, name TEXT NOT NULL, source TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
    corpus_hash TEXT NOT NULL REFERENCES corpora, doc_id TEXT NOT NULL, position INTEGER NOT NULL,
    lang TEXT NOT NULL, text TEXT NOT NULL, meta TEXT NOT NULL,
    PRIMARY KEY (corpus_hash, doc_id));
CREATE TABLE IF NOT EXISTS spans (
    corpus_hash TEXT NOT NULL, doc_id TEXT NOT NULL, span_index INTEGER NOT NULL,
    start INTEGER NOT NULL, "end" INTEGER NOT NULL, text TEXT NOT NULL, label TEXT NOT NULL,
    entity_id TEXT NOT NULL, mask INTEGER NOT NULL,
    PRIMARY KEY (corpus_hash, doc_id, span_index));
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY, signature TEXT NOT NULL, corpus_hash TEXT NOT NULL REFERENCES corpora,
    corpus_name TEXT NOT NULL, generator TEXT NOT NULL, model TEXT NOT NULL, mode TEXT NOT NULL,
    upos_filter INTEGER NOT NULL, options TEXT NOT NULL, config TEXT NOT NULL, versions TEXT NOT NULL,
    status TEXT NOT NULL, n_slots INTEGER NOT NULL, created REAL NOT NULL, finished REAL,
    source TEXT NOT NULL DEFAULT 'generated');
CREATE TABLE IF NOT EXISTS span_upos (
    corpus_hash TEXT NOT NULL, tagger TEXT NOT NULL, doc_id TEXT NOT NULL, span_index INTEGER NOT NULL,
    upos TEXT, PRIMARY KEY (corpus_hash, tagger, doc_id, span_index));
CREATE TABLE IF NOT EXISTS predictions (
    run_id TEXT NOT NULL REFERENCES runs, doc_id TEXT NOT NULL, span_index INTEGER NOT NULL,
    pseudonym TEXT NOT NULL, candidates TEXT NOT NULL, rank INTEGER, pick_upos TEXT,
    failed INTEGER NOT NULL, note TEXT NOT NULL, seconds REAL NOT NULL, requests INTEGER NOT NULL,
    PRIMARY KEY (run_id, doc_id, span_index));
"""


@dataclass(frozen=True, slots=True)
class StoredPrediction:
    doc_id: str
    span_index: int
    pseudonym: str
    candidates: tuple[str, ...]
    rank: int | None  # index of the pick among the candidates; None when failed or imported
    pick_upos: str | None  # the pick's UPOS in context when the UPOS filter tagged it
    failed: bool
    note: str
    seconds: float
    requests: int


@dataclass(frozen=True, slots=True)
class RunRecord:
    run_id: str
    signature: str
    corpus_hash: str
    corpus_name: str
    generator: str
    model: str
    mode: str
    upos_filter: bool
    options: dict
    config: dict
    versions: dict
    status: str  # running | complete
    n_slots: int
    created: float
    finished: float | None
    source: str  # generated | imported


class RunStore:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        # timeout: concurrent writers (annotators, a run) wait for the lock instead of failing.
        self.db = sqlite3.connect(str(path), timeout=60, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA foreign_keys=ON")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        # BEGIN IMMEDIATE takes the write lock up front, so two writers never deadlock
        # half-way through a batch.
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        else:
            self.db.execute("COMMIT")

    # -- corpora ---------------------------------------------------------------------
    def save_corpus(self, corpus: Corpus) -> None:
        if self.db.execute("SELECT 1 FROM corpora WHERE corpus_hash=?", (corpus.content_hash,)).fetchone():
            return
        with self.transaction() as db:
            db.execute("INSERT INTO corpora VALUES (?,?,?,?)", (corpus.content_hash, corpus.name, corpus.source, time.time()))
            db.executemany("INSERT INTO documents VALUES (?,?,?,?,?,?)",
                           [(corpus.content_hash, d.doc_id, i, d.lang, d.text, json.dumps(dict(d.meta)))
                            for i, d in enumerate(corpus.documents)])
            db.executemany("INSERT INTO spans VALUES (?,?,?,?,?,?,?,?,?)",
                           [(corpus.content_hash, d.doc_id, i, s.start, s.end, s.text, s.label, s.entity_id, int(s.mask))
                            for d in corpus.documents for i, s in enumerate(d.spans)])

    def load_corpus(self, corpus_hash: str) -> Corpus:
        row = self.db.execute("SELECT name, source FROM corpora WHERE corpus_hash=?", (corpus_hash,)).fetchone()
        if row is None:
            raise WorkbenchError(f"no corpus {corpus_hash[:12]} in {self.path}")
        spans: dict[str, list[Span]] = {}
        for doc_id, start, end, text, label, entity, mask in self.db.execute(
                'SELECT doc_id, start, "end", text, label, entity_id, mask FROM spans WHERE corpus_hash=? '
                'ORDER BY doc_id, span_index', (corpus_hash,)):
            spans.setdefault(doc_id, []).append(Span(start, end, text, label, entity, bool(mask)))
        docs = tuple(Document(doc_id, text, lang, tuple(spans.get(doc_id, ())), tuple(sorted(json.loads(meta).items())))
                     for doc_id, lang, text, meta in self.db.execute(
                         "SELECT doc_id, lang, text, meta FROM documents WHERE corpus_hash=? ORDER BY position",
                         (corpus_hash,)))
        return Corpus(row[0], row[1], docs)

    def corpora(self) -> list[tuple[str, str, str]]:
        return self.db.execute("SELECT corpus_hash, name, source FROM corpora ORDER BY created").fetchall()

    # -- span UPOS (tags of the originals, per tagger) ---------------------------------
    def span_upos(self, corpus_hash: str, tagger: str) -> dict[tuple[str, int], str | None]:
        return {(d, i): u for d, i, u in self.db.execute(
            "SELECT doc_id, span_index, upos FROM span_upos WHERE corpus_hash=? AND tagger=?", (corpus_hash, tagger))}

    def save_span_upos(self, corpus_hash: str, tagger: str, tags: dict[tuple[str, int], str | None]) -> None:
        with self.transaction() as db:
            db.executemany("INSERT OR REPLACE INTO span_upos VALUES (?,?,?,?,?)",
                           [(corpus_hash, tagger, d, i, u) for (d, i), u in tags.items()])

    # -- runs ------------------------------------------------------------------------
    def create_run(self, record: RunRecord) -> None:
        with self.transaction() as db:
            db.execute("INSERT INTO runs VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                       (record.run_id, record.signature, record.corpus_hash, record.corpus_name, record.generator,
                        record.model, record.mode, int(record.upos_filter), json.dumps(record.options),
                        json.dumps(record.config), json.dumps(record.versions), record.status, record.n_slots,
                        record.created, record.finished, record.source))

    def finish_run(self, run_id: str) -> None:
        with self.transaction() as db:
            db.execute("UPDATE runs SET status='complete', finished=? WHERE run_id=?", (time.time(), run_id))

    def delete_run(self, run_id: str) -> None:
        with self.transaction() as db:
            db.execute("DELETE FROM predictions WHERE run_id=?", (run_id,))
            db.execute("DELETE FROM runs WHERE run_id=?", (run_id,))

    @staticmethod
    def _record(row) -> RunRecord:
        (run_id, signature, corpus_hash, corpus_name, generator, model, mode, upos_filter, options, config, versions,
         status, n_slots, created, finished, source) = row
        return RunRecord(run_id, signature, corpus_hash, corpus_name, generator, model, mode, bool(upos_filter),
                         json.loads(options), json.loads(config), json.loads(versions), status, n_slots, created,
                         finished, source)

    def run(self, run_id: str) -> RunRecord:
        rows = self.db.execute("SELECT * FROM runs WHERE run_id LIKE ?", (run_id + "%",)).fetchall()
        if len(rows) != 1:
            raise WorkbenchError(f"{'no run' if not rows else 'several runs'} matching {run_id!r} in {self.path}")
        return self._record(rows[0])

    def find_run(self, run_id: str) -> RunRecord | None:
        row = self.db.execute("SELECT * FROM runs WHERE run_id=?", (run_id,)).fetchone()
        return self._record(row) if row else None

    def runs(self) -> list[RunRecord]:
        return [self._record(r) for r in self.db.execute("SELECT * FROM runs ORDER BY created")]

    # -- predictions -----------------------------------------------------------------
    def add_predictions(self, run_id: str, predictions: Iterable[StoredPrediction]) -> None:
        """One transaction; a (run, document, span) stored twice is an error, never a silent overwrite."""
        with self.transaction() as db:
            db.executemany("INSERT INTO predictions VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                           [(run_id, p.doc_id, p.span_index, p.pseudonym, json.dumps(p.candidates, ensure_ascii=False),
                             p.rank, p.pick_upos, int(p.failed), p.note, p.seconds, p.requests) for p in predictions])

    def predictions(self, run_id: str) -> list[StoredPrediction]:
        return [StoredPrediction(d, i, p, tuple(json.loads(c)), r, u, bool(f), n, s, q)
                for d, i, p, c, r, u, f, n, s, q in self.db.execute(
                    "SELECT doc_id, span_index, pseudonym, candidates, rank, pick_upos, failed, note, seconds, requests "
                    "FROM predictions WHERE run_id=? ORDER BY doc_id, span_index", (run_id,))]

    def done_keys(self, run_id: str) -> set[tuple[str, int]]:
        return set(self.db.execute("SELECT doc_id, span_index FROM predictions WHERE run_id=?", (run_id,)).fetchall())
