"""The store file's guard: opening one SQLite file as a run store, safely.

What opening checks, before any repository reads or writes a row: the file is SQLite and
as long as its header says (not truncated), it is not another application's database, it
is not damaged (PRAGMA quick_check, now or before the first write of a large store), its
schema is not newer than this code, and its tables hold the columns the records name;
pending migrations (workbench.store.schema) are applied in one transaction. The schema is
read from the tables as well as from user_version: a store restored from `sqlite3 .dump`
(which does not carry user_version) has the tables of its version, and only the migrations
after those are applied (_migrate). SQLite's own errors about the file (busy, full,
read-only, damaged) reach the user as WorkbenchErrors in the tool's words (`reported`),
in one line naming the file; a store it cannot use is a StoreFileError.

StoreFile holds the connection (`db`) and `transaction()`; the repositories
(workbench.store.corpora, .runs, .predictions) build on it, and RunStore combines them.
"""

from __future__ import annotations

import functools
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Concatenate, ParamSpec, TypeVar
from urllib.parse import parse_qs, quote, unquote, urlsplit

from workbench.infra.errors import WorkbenchError
from workbench.store.records import PREDICTION_COLUMNS, RUN_COLUMNS
from workbench.store.schema import (
    APPLICATION_ID,
    LEGACY_TABLES,
    MIGRATIONS,
    REQUIRED_TABLES,
    VERSION,
    Addition,
    holds_current_schema,
    tables_version,
)

# How long a writer waits for another connection's write lock before giving up with a
# message. Writes are short (one batch, one annotation save), so a wait this long means
# another process holds the store on purpose, e.g. an open transaction in a SQL shell.
BUSY_TIMEOUT_S = 20.0
# Files up to this size get PRAGMA quick_check on open (measured: 0.34 s for a 94 MiB store,
# so under 0.06 s here); larger ones are checked once before their first write, so reading
# a big store (dashboard, reports) stays instant and nothing is written into a damaged one.
QUICK_CHECK_ON_OPEN_BYTES = 16 * 2**20
_SQLITE_HEADER = b"SQLite format 3\x00"
_OPENING = threading.Lock()  # see StoreFile._check_header
# What a user can do about a store file the workbench cannot use.
RESTORE = "restore it from a backup or use another --store"


class StoreFileError(WorkbenchError):
    """A store file the workbench cannot use as it is (damaged, truncated, foreign, a schema it
    cannot read): `problem` says what in one line naming the file, and the message adds what the
    user of a command can do. A merge, which has no --store, words its own ending
    (workbench.store.merge_sources)."""

    def __init__(self, problem: str, advice: str = RESTORE) -> None:
        self.problem = problem
        super().__init__(f"{problem}; {advice}")


def _one_line(text: str, limit: int = 200) -> str:
    """SQLite's reports (quick_check's) can span lines; a message is one line of bounded length."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _translate(exc: sqlite3.Error, path: Path | str, timeout: float) -> WorkbenchError | None:
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
        return StoreFileError(f"the store {path} is damaged or not a workbench store ({_one_line(str(exc))})")
    if "unable to open" in message or "disk i/o" in message:
        return WorkbenchError(f"cannot open the store {path} ({exc})")
    return None


S = TypeVar("S")
P = ParamSpec("P")
R = TypeVar("R")


def reported(method: Callable[Concatenate[S, P], R]) -> Callable[Concatenate[S, P], R]:
    """Methods that touch the file turn SQLite's file errors into WorkbenchErrors."""
    @functools.wraps(method)
    def wrapper(self: S, *args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.Error as exc:
            error = _translate(exc, getattr(self, "path", "?"), getattr(self, "timeout", BUSY_TIMEOUT_S))
            if error is None:
                raise
            raise error from None
    return wrapper


class FileParts:
    """The base of each repository (corpora, runs, predictions): what it uses of StoreFile, named
    for the type checker. RunStore combines the repositories with StoreFile, which provides it."""

    if TYPE_CHECKING:
        db: sqlite3.Connection
        path: Path
        read_only: bool
        _lease_runs: set[str]

        def transaction(self) -> AbstractContextManager[sqlite3.Connection]: ...


class StoreFile:
    """One store file, opened and checked (see the module docstring). `read_only=True` (or a
    `file:PATH?mode=ro` URI, or a file the user cannot write) opens it read-only: reading
    works, writing raises a WorkbenchError. `create=False` refuses a path where no store exists.
    `immutable=True` reads it read-only without SQLite's locks, so that nothing (no -wal/-shm
    file) appears beside it: only for a file no process writes meanwhile, which the caller
    checks (workbench.store.merge_sources)."""

    @reported
    def __init__(self, path: str | Path, *, read_only: bool = False, create: bool = True,
                 timeout: float = BUSY_TIMEOUT_S, immutable: bool = False) -> None:
        text = str(path)
        read_only = read_only or immutable
        if text.startswith("file:"):  # an SQLite URI: file:PATH?mode=ro
            parts = urlsplit(text)
            read_only = read_only or parse_qs(parts.query).get("mode", [""])[0] == "ro"
            text = unquote(parts.path)
        self.path = Path(text)
        self.timeout = timeout
        self._lease_runs: set[str] = set()
        self._checked = False
        self._writer: int | None = None  # the thread whose transaction is open (see transaction)
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
        mode = ("ro&immutable=1" if immutable else "ro") if read_only else "rwc"
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
            raise StoreFileError(f"the store {self.path} is truncated ({size} bytes)")

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
            raise StoreFileError(f"the store {self.path} is damaged (SQLite quick_check: "
                                 f"{_one_line('; '.join(problems))})")
        self._checked = True

    def check_damage(self) -> None:
        """PRAGMA quick_check now, for a store about to be read whole (a merge's source): a large
        store is otherwise checked only before its first write."""
        if not self._checked:
            self._quick_check()

    def _tables(self) -> set[str]:
        return {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}

    def _state(self) -> tuple[int, int, set[str]]:
        return (self.db.execute("PRAGMA user_version").fetchone()[0],
                self.db.execute("PRAGMA application_id").fetchone()[0], self._tables())

    def _shown_version(self, version: int, tables: set[str]) -> int:
        """The version the tables show (workbench.store.schema.tables_version), where they are ahead
        of user_version: a store restored from a dump."""
        return max(version, tables_version(self.db)) if tables and version < VERSION else version

    def _refuse_foreign_or_damaged(self, version: int, app_id: int, tables: set[str]) -> None:
        ours = set(REQUIRED_TABLES) | {"sqlite_sequence"}
        if app_id not in (0, APPLICATION_ID) or (tables and not tables & ours):
            listed = ", ".join(sorted(tables)[:5]) or "none"
            raise StoreFileError(f"{self.path} is another application's SQLite database (tables: {listed}), not a "
                                 "run store; the workbench leaves it alone", "use another --store")
        if version > VERSION:
            raise WorkbenchError(f"the store {self.path} was written by a newer version of the workbench (schema "
                                 f"{version}; this version knows up to {VERSION}); upgrade the workbench to use it")
        shown = self._shown_version(version, tables)
        expected = set(REQUIRED_TABLES) if shown == VERSION else (LEGACY_TABLES if tables else set())
        missing = sorted(expected - tables)
        if missing:
            raise StoreFileError(f"the store {self.path} is damaged: table(s) {', '.join(missing)} missing; the "
                                 "workbench never recreates a missing table of a store that holds data")

    def _check_columns(self) -> None:
        """The columns this code reads and writes by name are there (a hand-edited or
        half-copied schema is refused before a command reads empty results from it)."""
        for table, wanted in (("runs", RUN_COLUMNS), ("predictions", PREDICTION_COLUMNS)):
            have = {r[1] for r in self.db.execute(f"PRAGMA table_info({table})")}
            missing = [c for c in wanted if c not in have]
            if missing:
                raise StoreFileError(f"the store {self.path} is damaged: table {table} lacks column(s) "
                                     f"{', '.join(missing)}")

    def _open_schema(self) -> None:
        version, app_id, tables = self._state()
        self._refuse_foreign_or_damaged(version, app_id, tables)
        if version == VERSION:
            self._check_columns()
            return
        if not tables and not self._may_create:
            raise WorkbenchError(f"{self.path} is an empty file, not a run store (check --store or $WORKBENCH_STORE)")
        if self.read_only and tables and holds_current_schema(self.db, version):
            self._check_columns()  # a restored dump of a current store: readable as it is, nothing to write
            return
        if self.read_only:
            what = "empty" if not tables else f"from an older version (schema {version})"
            raise WorkbenchError(f"the store {self.path} is {what} and opened read-only; open it once writable "
                                 f"so the workbench can {'create' if not tables else 'upgrade'} it")
        with self.transaction():
            version, app_id, tables = self._state()  # another process may have migrated meanwhile
            self._refuse_foreign_or_damaged(version, app_id, tables)
            if version < VERSION:
                self._migrate(version, tables)
            self._check_columns()  # inside the transaction: a damaged store is left as it was
            self.db.execute(f"PRAGMA user_version={VERSION}")
            self.db.execute(f"PRAGMA application_id={APPLICATION_ID}")

    def _migrate(self, version: int, tables: set[str]) -> None:
        """Bring the store from `version` (its user_version) to VERSION, in the open transaction.

        The migrations its tables show applied (a restored dump: user_version 0, the tables of
        its version) must be there whole; of theirs only the optional tables (migration 1's
        IF NOT EXISTS) are created where missing. The later migrations are applied in full, with
        their backfills. A gap (a column of an applied migration missing) is damage, refused."""
        shown = self._shown_version(version, tables)
        lacking = [a for m in MIGRATIONS[version:shown] for a in m.missing(self.db) if not a.optional]
        if lacking:
            raise StoreFileError(f"the store {self.path} is damaged: its tables are those of schema {shown} but "
                                 f"{_described(lacking, tables)} missing")
        try:
            for migration in MIGRATIONS[version:shown]:
                for addition in migration.missing(self.db):
                    self.db.execute(addition.sql)
            for migration in MIGRATIONS[shown:]:
                migration.apply(self.db)
        except sqlite3.Error as exc:  # a schema changed by hand, e.g. a table of that name already there
            error = _translate(exc, self.path, self.timeout)
            raise error or StoreFileError(f"the store {self.path} cannot be upgraded from schema {shown} to "
                                          f"{VERSION} ({_one_line(str(exc))})") from None

    def close(self) -> None:
        self.db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One transaction; BEGIN IMMEDIATE takes the write lock up front, so two writers never
        deadlock half-way through a batch. Called again by the thread whose transaction is open, it
        joins that one as a savepoint: the outer transaction commits everything or nothing (a whole
        run stored at once, workbench.store.whole_run), and a failed inner block is undone alone."""
        if self._writer == threading.get_ident():
            with self._savepoint():
                yield self.db
            return
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
            self._writer = threading.get_ident()
            try:
                yield self.db
            except BaseException:
                if self.db.in_transaction:  # SQLite rolls back by itself after some errors (disk full)
                    self.db.execute("ROLLBACK")
                raise
            else:
                self.db.execute("COMMIT")
            finally:
                self._writer = None
        except sqlite3.Error as exc:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            error = _translate(exc, self.path, self.timeout)
            if error is None:
                raise
            raise error from None

    @contextmanager
    def _savepoint(self) -> Iterator[None]:
        if not self.db.in_transaction:  # SQLite rolled the outer one back (disk full): never go on in autocommit
            raise WorkbenchError(f"the write to the store {self.path} was rolled back; nothing of it was stored")
        self.db.execute("SAVEPOINT nested")
        try:
            yield
        except BaseException:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK TO nested")
                self.db.execute("RELEASE nested")
            raise
        else:
            self.db.execute("RELEASE nested")


def _described(additions: list[Addition], tables: set[str]) -> str:
    """"table run_leases, column runs.seed": a column of a table the store lacks is named by its table."""
    names: list[str] = []
    for a in additions:
        table = a.name.split(".")[0]
        name = f"table {table}" if a.kind == "column" and table not in tables else f"{a.kind} {a.name}"
        if name not in names:
            names.append(name)
    return ", ".join(names)
