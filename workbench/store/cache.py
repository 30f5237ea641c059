"""A key → value cache in its own SQLite file: what metrics and taggers derive with models.

Not the run store: a cache file can be deleted at any time (it is filled again on the
next run), and two processes share one (WAL). Values are kept decoded in memory too, so
a key asked twice in one process is read from the file once. One class serves every
cache; each caller names its table and value column (the tagger's token cache has kept
its own since before the metrics caches, and existing cache files stay readable) and how
its values are stored (`encode`) and read back (`decode`).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Generic, TypeVar

V = TypeVar("V")


class KeyValueCache(Generic[V]):
    """key → value (of type V) in one SQLite table; in-memory only when path is None (tests, --no-cache).

    By default a value is bytes, stored as a BLOB; `encode` turns a value into what is
    stored (bytes or text), `decode` turns a stored one back."""

    _CHUNK = 500  # SQLite's default limit on host parameters is 999

    def __init__(self, path: Path | None, *, table: str = "kv", value_column: str = "value",
                 value_type: str = "BLOB", timeout: float = 60, encode: Callable = bytes,
                 decode: Callable = bytes) -> None:
        self._lock = threading.Lock()
        self._memory: dict[str, V] = {}
        self._table, self._column = table, value_column
        self._encode, self._decode = encode, decode
        self._db = None
        if path is not None:
            self._db = sqlite3.connect(str(path), timeout=timeout, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(f"CREATE TABLE IF NOT EXISTS {table} (key TEXT PRIMARY KEY, "
                             f"{value_column} {value_type} NOT NULL)")
            self._db.commit()

    def get_many(self, keys: Sequence[str]) -> dict[str, V]:
        found = {k: self._memory[k] for k in keys if k in self._memory}
        missing = [k for k in dict.fromkeys(keys) if k not in found]
        if self._db is not None and missing:
            with self._lock:
                for i in range(0, len(missing), self._CHUNK):
                    chunk = missing[i:i + self._CHUNK]
                    rows = self._db.execute(f"SELECT key, {self._column} FROM {self._table} "
                                            f"WHERE key IN ({','.join('?' * len(chunk))})", chunk).fetchall()
                    for k, v in rows:
                        found[k] = self._memory[k] = self._decode(v)
        return found

    def put_many(self, items: Mapping[str, V]) -> None:
        self._memory.update(items)
        if self._db is not None and items:
            with self._lock:
                self._db.executemany(f"INSERT OR REPLACE INTO {self._table} VALUES (?, ?)",
                                     [(k, self._encode(v)) for k, v in items.items()])
                self._db.commit()
