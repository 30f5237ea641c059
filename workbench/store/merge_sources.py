"""Opening the stores a merge reads from (workbench.store.merge), without ever writing to them.

A source is checked before anything is merged: it exists, it is not the destination, it is an
SQLite file whose application id is the workbench's (or 0 with the workbench's tables: a store
from before ids, or one restored from `sqlite3 .dump`), its schema is not newer than this
workbench knows (a newer schema may have columns whose meaning this code does not know, so
merging it could drop or misread them), and it is not damaged (PRAGMA quick_check, whatever its
size). Every refusal is one line naming the file and ending "nothing was merged".

A source whose tables are those of the current schema is opened read-only. One from an older
version is copied (SQLite's backup, which reads a consistent snapshot, WAL included) into a
temporary folder and the copy is migrated the usual way: the user's file is left as it was, and
the merge reads current columns.

Nothing appears beside a source: SQLite opening a WAL-mode file read-only creates its -wal and
-shm files when they are missing, and cannot remove them afterwards. So a source that no process
has open (no -wal, -shm or -journal beside it) is read `immutable`, without locks, and its
file's size and times are compared after the read: a process that wrote to it meanwhile makes
the merge refuse (nothing merged) rather than use a snapshot read without locks. A source some
process has open already has those files, and is read through them, with SQLite's locks.

The temporary folder is made only when a copy is needed, and named after the merging process
(workbench-merge-PID-…), so that one a killed merge left behind is removed by the next merge.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from workbench.infra.errors import WorkbenchError
from workbench.store import RunStore
from workbench.store.file import StoreFileError
from workbench.store.schema import APPLICATION_ID, REQUIRED_TABLES, VERSION, holds_current_schema

_SQLITE_HEADER = b"SQLite format 3\x00"
_SCRATCH = "workbench-merge-"
NOTHING_MERGED = "; nothing was merged"


def same_file(a: Path, b: Path) -> bool:
    if a.exists() and b.exists():
        return a.samefile(b)
    return a.resolve() == b.resolve()


def _in_use(path: Path) -> bool:
    """A process has the file open for writing, or left a journal to recover (its files are there)."""
    return any(path.with_name(path.name + s).exists() for s in ("-wal", "-shm", "-journal"))


@dataclass(frozen=True, slots=True)
class FileStamp:
    """What a write to a file changes (a checkpoint into the file included)."""
    size: int
    mtime_ns: int
    ctime_ns: int
    inode: int

    @classmethod
    def of(cls, path: Path) -> FileStamp:
        st = path.stat()
        return cls(st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)

    def check(self, path: Path) -> None:
        """Refuse the merge when the file, read without locks, was written to since this stamp."""
        if FileStamp.of(path) != self:
            raise WorkbenchError(f"{path} was written to while it was merged (a process opened it meanwhile); "
                                 "run the merge again when that process is done" + NOTHING_MERGED)


@dataclass(slots=True)
class Source:
    """One source of a merge: the user's file, the store read (it, or its migrated copy), and the
    file's stamp when it is read without locks (None: read with SQLite's locks, or copied)."""
    path: Path
    store: RunStore
    stamp: FileStamp | None = field(default=None)

    def check_unchanged(self) -> None:
        if self.stamp is not None:
            self.stamp.check(self.path)

    def close(self) -> None:
        self.store.close()


def _connect_read_only(path: Path, immutable: bool) -> sqlite3.Connection:
    mode = "ro&immutable=1" if immutable else "ro"
    return sqlite3.connect(f"file:{quote(path.resolve().as_posix())}?mode={mode}", uri=True)


def source_version(path: Path, immutable: bool = False) -> int:
    """The schema version of the store at `path`, as its tables show it (VERSION for a restored
    dump of a current store); a WorkbenchError naming the file when it is missing, not a
    workbench store, or newer than this workbench."""
    if not path.exists():
        raise WorkbenchError(f"no store at {path} to merge" + NOTHING_MERGED)
    if path.is_dir():
        raise WorkbenchError(f"{path} is a folder, not a store" + NOTHING_MERGED)
    with path.open("rb") as f:
        header = f.read(len(_SQLITE_HEADER))
    if header != _SQLITE_HEADER:
        raise WorkbenchError(f"{path} is not a workbench store (not an SQLite database)" + NOTHING_MERGED)
    try:
        db = _connect_read_only(path, immutable)
        try:
            app_id = db.execute("PRAGMA application_id").fetchone()[0]
            version = db.execute("PRAGMA user_version").fetchone()[0]
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            current = version <= VERSION and bool(tables) and holds_current_schema(db, version)
        finally:
            db.close()
    except sqlite3.Error as exc:
        raise WorkbenchError(f"cannot read the store {path} ({' '.join(str(exc).split())})" + NOTHING_MERGED) \
            from None
    ours = set(REQUIRED_TABLES) | {"sqlite_sequence"}
    if app_id != APPLICATION_ID and not (app_id == 0 and tables and tables <= ours):  # 0: a store from before ids
        raise WorkbenchError(f"{path} is not a workbench store (another application's SQLite database)"
                             + NOTHING_MERGED)
    if version > VERSION:
        raise WorkbenchError(f"the store {path} has schema {version}, newer than this workbench knows (up to "
                             f"{VERSION}); upgrade the workbench to merge it" + NOTHING_MERGED)
    return VERSION if current else version


def open_source(path: Path, scratch: Scratch) -> Source:
    """The source store, read-only; an older one as a migrated copy in the scratch folder (see the
    module docstring). A store that cannot be read is a WorkbenchError naming the user's file."""
    immutable = path.is_file() and not _in_use(path)
    stamp = FileStamp.of(path) if immutable else None
    if source_version(path, immutable) == VERSION:
        return Source(path, _checked(path, lambda: RunStore(path, immutable=immutable)), stamp)
    copy = scratch.new_file(path.name)
    source, target = _connect_read_only(path, immutable), sqlite3.connect(copy)
    try:
        source.backup(target)
    except sqlite3.Error as exc:
        raise WorkbenchError(f"cannot read the store {path} ({' '.join(str(exc).split())})" + NOTHING_MERGED) \
            from None
    finally:
        source.close()
        target.close()
    if stamp is not None:
        stamp.check(path)  # the copy is of one state of the file
    return Source(path, _checked(path, lambda: RunStore(copy), copy))


def _checked(path: Path, open_store, copy: Path | None = None) -> RunStore:
    """The store opened and quick-checked; its refusal in the merge's words, naming the user's file."""
    store = None
    try:
        store = open_store()
        store.check_damage()
        return store
    except WorkbenchError as exc:
        if store is not None:
            store.close()
        text = exc.problem if isinstance(exc, StoreFileError) else str(exc)
        if copy is not None:
            text = text.replace(str(copy), str(path))
        raise WorkbenchError(text if text.endswith(NOTHING_MERGED) else text + NOTHING_MERGED) from None


@dataclass(slots=True)
class Scratch:
    """A merge's temporary folder, made when the first copy needs it (see the module docstring)."""
    path: Path | None = None
    files: int = 0

    def new_file(self, name: str) -> Path:
        """A new path in the folder (made now if not yet), numbered: two sources may share a name."""
        if self.path is None:
            self.path = Path(tempfile.mkdtemp(prefix=f"{_SCRATCH}{os.getpid()}-"))
        self.files += 1
        return self.path / f"{self.files}-{name}"


@contextmanager
def scratch() -> Iterator[Scratch]:
    """The scratch folder of one merge, removed afterwards; those of killed merges removed first."""
    _remove_stale(Path(tempfile.gettempdir()))
    made = Scratch()
    try:
        yield made
    finally:
        if made.path is not None:
            shutil.rmtree(made.path, ignore_errors=True)


def _remove_stale(parent: Path) -> None:
    """Remove the scratch folders of merges whose process is gone (killed: no cleanup ran)."""
    from workbench.store import _pid_alive
    for folder in parent.glob(f"{_SCRATCH}*"):
        pid = folder.name[len(_SCRATCH):].split("-")[0]
        if folder.is_dir() and pid.isdigit() and int(pid) != os.getpid() and not _pid_alive(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)
