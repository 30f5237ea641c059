"""Opening the stores a merge reads from (workbench.store.merge), without ever writing to them.

A source is checked before anything is merged: it exists, it is not the destination, it is an
SQLite file whose application id is the workbench's (or 0 with the workbench's tables: a store
from before ids), and its schema is not newer than this workbench knows: a newer schema may
have columns whose meaning this code does not know, so merging it could drop or misread them.

A source at the current schema is opened read-only. One from an older version is copied (SQLite's
backup, which reads a consistent snapshot, WAL included) into a temporary folder and the copy is
migrated the usual way: the user's file is left as it was, and the merge reads current columns.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from urllib.parse import quote

from workbench.errors import WorkbenchError
from workbench.store import RunStore
from workbench.store.schema import APPLICATION_ID, REQUIRED_TABLES, VERSION

_SQLITE_HEADER = b"SQLite format 3\x00"


def same_file(a: Path, b: Path) -> bool:
    if a.exists() and b.exists():
        return a.samefile(b)
    return a.resolve() == b.resolve()


def _read_only(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{quote(path.resolve().as_posix())}?mode=ro", uri=True)


def source_version(path: Path) -> int:
    """The schema version of the store at `path`; a WorkbenchError naming the file when it is
    missing, not a workbench store, or newer than this workbench."""
    if not path.exists():
        raise WorkbenchError(f"no store at {path} to merge; nothing was merged")
    if path.is_dir():
        raise WorkbenchError(f"{path} is a folder, not a store; nothing was merged")
    with path.open("rb") as f:
        header = f.read(len(_SQLITE_HEADER))
    if header != _SQLITE_HEADER:
        raise WorkbenchError(f"{path} is not a workbench store (not an SQLite database); nothing was merged")
    try:
        db = _read_only(path)
        try:
            app_id = db.execute("PRAGMA application_id").fetchone()[0]
            version = db.execute("PRAGMA user_version").fetchone()[0]
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        finally:
            db.close()
    except sqlite3.Error as exc:
        raise WorkbenchError(f"cannot read the store {path} ({exc}); nothing was merged") from None
    ours = set(REQUIRED_TABLES) | {"sqlite_sequence"}
    if app_id != APPLICATION_ID and not (app_id == 0 and tables and tables <= ours):  # 0: a store from before ids
        raise WorkbenchError(f"{path} is not a workbench store (another application's SQLite database); "
                             "nothing was merged")
    if version > VERSION:
        raise WorkbenchError(f"the store {path} has schema {version}, newer than this workbench knows (up to "
                             f"{VERSION}); upgrade the workbench to merge it; nothing was merged")
    return version


def open_source(path: Path, workdir: Path) -> RunStore:
    """The source store, read-only; an older one as a migrated copy in `workdir` (see the docstring)."""
    if source_version(path) == VERSION:
        return RunStore(path, read_only=True)
    copy = workdir / f"{len(list(workdir.iterdir()))}-{path.name}"
    source, target = _read_only(path), sqlite3.connect(copy)
    try:
        source.backup(target)
    finally:
        source.close()
        target.close()
    try:
        return RunStore(copy)
    except WorkbenchError as exc:  # name the user's file, not the temporary copy
        raise WorkbenchError(str(exc).replace(str(copy), str(path)) + "; nothing was merged") from None
