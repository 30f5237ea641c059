"""The run store: one SQLite file (WAL) holding corpora snapshots, runs and predictions.

Runs are self-contained: the documents and spans they were made from are stored with
them, so reports, exports and the dashboard never need the original corpus file.
The schema (run and annotation tables) and its migrations are in workbench.store.schema;
opening a store checks that the file is a workbench store, applies pending migrations,
and refuses a foreign, damaged or newer file with a WorkbenchError.

Rows are written and read by column name; the column lists come from the record
dataclasses (workbench.store.records), so a new field is a new column and a migration,
nothing else.

Writes are transactions: a batch of predictions lands whole or not at all, which is
what makes an interrupted run resumable without loss or duplicates.
"""

from __future__ import annotations

import functools
import json
import os
import socket
import sqlite3
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, Iterator
from urllib.parse import parse_qs, quote, unquote, urlsplit

from workbench.errors import WorkbenchError
from workbench.model import Corpus, Document, Span
from workbench.store.records import (PREDICTION_COLUMNS, RUN_COLUMNS, RunRecord, StoredPrediction, insert_sql,
                                     prediction_row, quoted_columns, record_of, run_row)
from workbench.store.schema import APPLICATION_ID, LEGACY_TABLES, MIGRATIONS, REQUIRED_TABLES, VERSION

__all__ = ["BUSY_TIMEOUT_S", "RunRecord", "RunStore", "StoredPrediction"]

# How long a writer waits for another connection's write lock before giving up with a
# message. Writes are short (one batch, one annotation save), so a wait this long means
# another process holds the store on purpose, e.g. an open transaction in a SQL shell.
BUSY_TIMEOUT_S = 20.0
# Files up to this size get PRAGMA quick_check on open (measured: 0.34 s for a 94 MiB store,
# so under 0.06 s here); larger ones are checked once before their first write, so reading
# a big store (dashboard, reports) stays instant and nothing is written into a damaged one.
QUICK_CHECK_ON_OPEN_BYTES = 16 * 2**20
_SQLITE_HEADER = b"SQLite format 3\x00"
_OPENING = threading.Lock()  # see RunStore._check_header


def _translate(exc: sqlite3.Error, path: Path, timeout: float) -> WorkbenchError | None:
    """The tool's own words for what SQLite reports about the file; None: a programming error."""
    message = str(exc).lower()
    if "locked" in message or "busy" in message:
        return WorkbenchError(f"the store {path} is locked by another process (waited {timeout:g} s); try again "
                              "when that process has finished, or stop it")
    if "full" in message:
        return WorkbenchError(f"the disk holding the store {path} is full (or the store reached its size limit); "
                              "nothing of the last write was stored; free some space and run the same command "
                              "again to resume")
    if "readonly" in message or "read-only" in message:
        return WorkbenchError(f"the store {path} is read-only (opened read-only, or the file or its folder is "
                              "not writable); this command needs to write to it")
    if "not a database" in message or "malformed" in message or "corrupt" in message:
        return WorkbenchError(f"the store {path} is damaged or not a workbench store ({exc}); restore it from a "
                              "backup or use another --store")
    if "unable to open" in message or "disk i/o" in message:
        return WorkbenchError(f"cannot open the store {path} ({exc})")
    return None


def _reported(method):
    """Methods that touch the file turn SQLite's file errors into WorkbenchErrors."""
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except sqlite3.Error as exc:
            error = _translate(exc, getattr(self, "path", "?"), getattr(self, "timeout", BUSY_TIMEOUT_S))
            if error is None:
                raise
            raise error from None
    return wrapper


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


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class RunStore:
    """One store file. `read_only=True` (or a `file:PATH?mode=ro` URI, or a file the user
    cannot write) opens it read-only: listing, showing, exporting and reports work, writing
    raises a WorkbenchError. `create=False` refuses a path where no store exists."""

    @_reported
    def __init__(self, path: str | Path, *, read_only: bool = False, create: bool = True,
                 timeout: float = BUSY_TIMEOUT_S) -> None:
        text = str(path)
        if text.startswith("file:"):  # an SQLite URI: file:PATH?mode=ro
            parts = urlsplit(text)
            read_only = read_only or parse_qs(parts.query).get("mode", [""])[0] == "ro"
            text = unquote(parts.path)
        self.path = Path(text)
        self.timeout = timeout
        self._lease_runs: set[str] = set()
        self._checked = False
        memory = text == ":memory:"
        exists = not memory and self.path.exists()
        if not memory and not exists and (read_only or not create):
            raise WorkbenchError(f"no run store at {self.path} (check --store or $WORKBENCH_STORE)")
        if exists and self.path.stat().st_size == 0 and (read_only or not create):
            raise WorkbenchError(f"{self.path} is an empty file, not a run store (check --store or $WORKBENCH_STORE)")
        if exists:
            read_only = read_only or not os.access(self.path, os.W_OK)
        elif not memory:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self.read_only = read_only
        self._may_create = create and not read_only
        # quote: a file name holding "?", "#" or "%" must not be read as URI syntax
        mode = "ro" if read_only else "rwc"
        uri = "file::memory:" if memory else f"file:{quote(self.path.resolve().as_posix())}?mode={mode}"
        with _OPENING:  # see _check_header: no other connection of this process starts meanwhile
            if exists:
                self._check_header()
            self.db = sqlite3.connect(uri, uri=True, timeout=timeout, isolation_level=None, check_same_thread=False)
            try:
                if not read_only:
                    self.db.execute("PRAGMA journal_mode=WAL")  # the first statement: SQLite's locks from here on
                    self.db.execute("PRAGMA synchronous=NORMAL")
                self.db.execute("PRAGMA foreign_keys=ON")
                self.db.execute("PRAGMA user_version").fetchone()  # reads the file: a read-only one too
            except BaseException:
                self.db.close()
                raise
        try:
            if exists and self.path.stat().st_size <= QUICK_CHECK_ON_OPEN_BYTES:
                self._quick_check()
            self._open_schema()
        except BaseException:
            self.db.close()
            raise

    # -- opening ---------------------------------------------------------------------
    def _check_header(self) -> None:
        """Refuse a file that is not SQLite, or shorter than its header says, in words.

        Only when no connection has the file open: closing any file descriptor of a file
        drops every POSIX lock this process holds on it, SQLite's included, and a store
        whose locks vanish can have its WAL checkpointed and deleted under a live writer
        (lost writes). An open WAL store has its -wal/-shm files beside it; then the
        header is left to SQLite's own errors and quick_check. _OPENING keeps the other
        threads of this process from connecting while the header is read."""
        if any(self.path.with_name(self.path.name + suffix).exists() for suffix in ("-wal", "-shm")):
            return
        with self.path.open("rb") as f:
            header = f.read(100)  # the SQLite file header
        size = self.path.stat().st_size
        if header and header[:len(_SQLITE_HEADER)] != _SQLITE_HEADER[:len(header)]:
            raise WorkbenchError(f"{self.path} is not a run store (not an SQLite database); check --store")
        short = size < self._size_in_header(header)
        if header and (len(header) < 100 or size < 512 or short):
            raise WorkbenchError(f"the store {self.path} is truncated ({size} bytes); restore it from a backup or "
                                 "use another --store")

    @staticmethod
    def _size_in_header(header: bytes) -> int:
        """The file size the header records (page size x page count), 0 when not recorded.

        The count is valid only when the "version-valid-for" number equals the change
        counter (SQLite file format §1.3); in WAL mode the file is never shorter than it."""
        page_size = int.from_bytes(header[16:18], "big")
        page_size = 65536 if page_size == 1 else page_size
        pages = int.from_bytes(header[28:32], "big")
        valid = header[92:96] == header[24:28]
        return page_size * pages if valid else 0

    def _quick_check(self) -> None:
        problems = [r[0] for r in self.db.execute("PRAGMA quick_check(5)").fetchall()]
        if problems != ["ok"]:
            raise WorkbenchError(f"the store {self.path} is damaged (SQLite quick_check: {'; '.join(problems)}); "
                                 "restore it from a backup or use another --store")
        self._checked = True

    def _tables(self) -> set[str]:
        return {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}

    def _state(self) -> tuple[int, int, set[str]]:
        return (self.db.execute("PRAGMA user_version").fetchone()[0],
                self.db.execute("PRAGMA application_id").fetchone()[0], self._tables())

    def _refuse_foreign_or_damaged(self, version: int, app_id: int, tables: set[str]) -> None:
        ours = set(REQUIRED_TABLES) | {"sqlite_sequence"}
        if app_id not in (0, APPLICATION_ID) or (tables and not tables & ours):
            listed = ", ".join(sorted(tables)[:5]) or "none"
            raise WorkbenchError(f"{self.path} is another application's SQLite database (tables: {listed}), not a "
                                 "run store; the workbench leaves it alone; use another --store")
        if version > VERSION:
            raise WorkbenchError(f"the store {self.path} was written by a newer version of the workbench (schema "
                                 f"{version}; this version knows up to {VERSION}); upgrade the workbench to use it")
        expected = set(REQUIRED_TABLES) if version == VERSION else (LEGACY_TABLES if tables else set())
        missing = sorted(expected - tables)
        if missing:
            raise WorkbenchError(f"the store {self.path} is damaged: table(s) {', '.join(missing)} missing; the "
                                 "workbench never recreates a missing table of a store that holds data; restore "
                                 "it from a backup or use another --store")

    def _check_columns(self) -> None:
        """The columns this code reads and writes by name are there (a hand-edited or
        half-copied schema is refused before a command reads empty results from it)."""
        for table, wanted in (("runs", RUN_COLUMNS), ("predictions", PREDICTION_COLUMNS)):
            have = {r[1] for r in self.db.execute(f"PRAGMA table_info({table})")}
            missing = [c for c in wanted if c not in have]
            if missing:
                raise WorkbenchError(f"the store {self.path} is damaged: table {table} lacks column(s) "
                                     f"{', '.join(missing)}; restore it from a backup or use another --store")

    def _open_schema(self) -> None:
        version, app_id, tables = self._state()
        self._refuse_foreign_or_damaged(version, app_id, tables)
        if version == VERSION:
            self._check_columns()
            return
        if not tables and not self._may_create:
            raise WorkbenchError(f"{self.path} is an empty file, not a run store (check --store or $WORKBENCH_STORE)")
        if self.read_only:
            what = "empty" if not tables else f"from an older version (schema {version})"
            raise WorkbenchError(f"the store {self.path} is {what} and opened read-only; open it once writable "
                                 f"so the workbench can {'create' if not tables else 'upgrade'} it")
        with self.transaction():
            version, app_id, tables = self._state()  # another process may have migrated meanwhile
            self._refuse_foreign_or_damaged(version, app_id, tables)
            for migration in MIGRATIONS[version:]:
                migration(self.db)
            self._check_columns()  # inside the transaction: a damaged store is left as it was
            self.db.execute(f"PRAGMA user_version={VERSION}")
            self.db.execute(f"PRAGMA application_id={APPLICATION_ID}")

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> "RunStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        # BEGIN IMMEDIATE takes the write lock up front, so two writers never deadlock
        # half-way through a batch.
        try:
            if self.read_only:
                raise WorkbenchError(f"the store {self.path} is open read-only; this command needs to write to it")
            if not self._checked and self.path.name != ":memory:":
                self._quick_check()  # a large store: checked once, before its first write
            try:
                self.db.execute("BEGIN IMMEDIATE")
            except BaseException:  # e.g. Ctrl-C as BEGIN returns: never leave the transaction open
                if self.db.in_transaction:
                    self.db.execute("ROLLBACK")
                raise
            try:
                yield self.db
            except BaseException:
                if self.db.in_transaction:  # SQLite rolls back by itself after some errors (disk full)
                    self.db.execute("ROLLBACK")
                raise
            else:
                self.db.execute("COMMIT")
        except sqlite3.Error as exc:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            error = _translate(exc, self.path, self.timeout)
            if error is None:
                raise
            raise error from None

    # -- corpora ---------------------------------------------------------------------
    @_reported
    def save_corpus(self, corpus: Corpus) -> None:
        """Idempotent, also when two processes save the same corpus at the same moment."""
        if self.db.execute("SELECT 1 FROM corpora WHERE corpus_hash=?", (corpus.content_hash,)).fetchone():
            return
        with self.transaction() as db:
            if db.execute("SELECT 1 FROM corpora WHERE corpus_hash=?", (corpus.content_hash,)).fetchone():
                return  # saved by another process while this one waited for the lock
            db.execute("INSERT INTO corpora (corpus_hash, name, source, created) VALUES (?,?,?,?)",
                       (corpus.content_hash, corpus.name, corpus.source, time.time()))
            db.executemany("INSERT INTO documents (corpus_hash, doc_id, position, lang, text, meta) "
                           "VALUES (?,?,?,?,?,?)",
                           [(corpus.content_hash, d.doc_id, i, d.lang, d.text, json.dumps(dict(d.meta)))
                            for i, d in enumerate(corpus.documents)])
            db.executemany('INSERT INTO spans (corpus_hash, doc_id, span_index, start, "end", text, label, '
                           'entity_id, mask) VALUES (?,?,?,?,?,?,?,?,?)',
                           [(corpus.content_hash, d.doc_id, i, s.start, s.end, s.text, s.label, s.entity_id,
                             int(s.mask)) for d in corpus.documents for i, s in enumerate(d.spans)])

    @_reported
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

    @_reported
    def corpora(self) -> list[tuple[str, str, str]]:
        return self.db.execute("SELECT corpus_hash, name, source FROM corpora ORDER BY created").fetchall()

    # -- span UPOS (tags of the originals, per tagger) ---------------------------------
    @_reported
    def span_upos(self, corpus_hash: str, tagger: str) -> dict[tuple[str, int], str | None]:
        return {(d, i): u for d, i, u in self.db.execute(
            "SELECT doc_id, span_index, upos FROM span_upos WHERE corpus_hash=? AND tagger=?", (corpus_hash, tagger))}

    @_reported
    def save_span_upos(self, corpus_hash: str, tagger: str, tags: dict[tuple[str, int], str | None]) -> None:
        # INSERT OR REPLACE: two processes tagging the same corpus write the same rows.
        with self.transaction() as db:
            db.executemany("INSERT OR REPLACE INTO span_upos (corpus_hash, tagger, doc_id, span_index, upos) "
                           "VALUES (?,?,?,?,?)", [(corpus_hash, tagger, d, i, u) for (d, i), u in tags.items()])

    # -- runs ------------------------------------------------------------------------
    @_reported
    def create_run(self, record: RunRecord) -> None:
        """Store a new run; a run with the same id (so the same signature) already stored is kept."""
        with self.transaction() as db:
            db.execute(insert_sql("runs", RUN_COLUMNS, "ON CONFLICT (run_id) DO NOTHING"), run_row(record))

    @_reported
    def finish_run(self, run_id: str) -> None:
        with self.transaction() as db:
            db.execute("UPDATE runs SET status='complete', finished=? WHERE run_id=?", (time.time(), run_id))

    @_reported
    def reopen_run(self, run_id: str) -> None:
        """Mark a run running again (its missing spans will be generated on the next resume)."""
        with self.transaction() as db:
            db.execute("UPDATE runs SET status='running', finished=NULL WHERE run_id=?", (run_id,))

    @_reported
    def set_run_name(self, run_id: str, name: str | None) -> None:
        """Name (or rename, or with None un-name) a run; the name is not in the signature, so the
        run id stays. A name that is not short, printable text is a WorkbenchError."""
        from workbench.run_name import check_run_name
        name = None if name is None else check_run_name(name)
        with self.transaction() as db:
            if db.execute("UPDATE runs SET name=? WHERE run_id=?", (name, run_id)).rowcount == 0:
                raise WorkbenchError(f"no run {run_id} in {self.path}")

    @_reported
    def delete_run(self, run_id: str) -> None:
        with self.transaction() as db:
            db.execute("DELETE FROM predictions WHERE run_id=?", (run_id,))
            db.execute("DELETE FROM reid_results WHERE run_id=?", (run_id,))
            db.execute("DELETE FROM inference_results WHERE run_id=?", (run_id,))
            db.execute("DELETE FROM run_reports WHERE run_id=?", (run_id,))
            db.execute("DELETE FROM runs WHERE run_id=?", (run_id,))

    def _select_runs(self, where: str = "", args: tuple = ()) -> list[RunRecord]:
        rows = self.db.execute(f"SELECT {quoted_columns(RUN_COLUMNS)} FROM runs {where} ORDER BY created, run_id", args)
        return [record_of(r) for r in rows.fetchall()]

    @_reported
    def get_run(self, run_id: str) -> RunRecord | None:
        """The run with exactly this id, or None."""
        found = self._select_runs("WHERE run_id=?", (run_id,))
        return found[0] if found else None

    @_reported
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

    @_reported
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

    @_reported
    def lease(self, run_id: str) -> tuple[int, str, float, float] | None:
        """(pid, host, started, heartbeat) of the process generating the run, or None."""
        return self.db.execute("SELECT pid, host, started, heartbeat FROM run_leases WHERE run_id=?",
                               (run_id,)).fetchone()

    # -- predictions -----------------------------------------------------------------
    @_reported
    def add_predictions(self, run_id: str, predictions: Iterable[StoredPrediction]) -> None:
        """One transaction; a (run, document, span) stored twice is an error, never a silent overwrite."""
        rows = [prediction_row(run_id, p) for p in predictions]
        for row in rows:  # checked before the transaction: a batch lands whole or not at all
            _check_storable(row)
        with self.transaction() as db:
            db.executemany(insert_sql("predictions", PREDICTION_COLUMNS), rows)
            if run_id in self._lease_runs:
                db.execute("UPDATE run_leases SET heartbeat=? WHERE run_id=?", (time.time(), run_id))

    @_reported
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

    @_reported
    def count_predictions(self, run_id: str, failed: bool | None = None) -> int:
        """How many predictions the run has stored (only failed ones, or only successful ones, if asked)."""
        if failed is None:
            return self.db.execute("SELECT COUNT(*) FROM predictions WHERE run_id=?", (run_id,)).fetchone()[0]
        return self.db.execute("SELECT COUNT(*) FROM predictions WHERE run_id=? AND failed=?",
                               (run_id, int(failed))).fetchone()[0]

    @_reported
    def delete_failed_predictions(self, run_id: str) -> int:
        """Forget the run's FAILED spans and mark it running, so resuming generates them again.

        Returns how many were deleted; with none, the run's status is left as it was."""
        with self.transaction() as db:
            deleted = db.execute("DELETE FROM predictions WHERE run_id=? AND failed=1", (run_id,)).rowcount
            if deleted:
                db.execute("UPDATE runs SET status='running', finished=NULL WHERE run_id=?", (run_id,))
        return deleted

    @_reported
    def spans_per_second(self) -> dict[str, float]:
        """Per generator, the spans its generated runs stored per second of generation time (the
        `seconds` each prediction records): what a benchmark plan estimates its time from."""
        rows = self.db.execute(
            "SELECT r.generator, COUNT(*), SUM(p.seconds) FROM predictions p JOIN runs r ON r.run_id = p.run_id "
            "WHERE r.source = 'generated' GROUP BY r.generator")
        return {name: n / total for name, n, total in rows if n and total and total > 0}

    def done_keys(self, run_id: str) -> set[tuple[str, int]]:
        return set(self.db.execute("SELECT doc_id, span_index FROM predictions WHERE run_id=?", (run_id,)).fetchall())
