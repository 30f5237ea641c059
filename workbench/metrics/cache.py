"""On-disk caches for what metrics derive with models: embeddings, summaries, results.

One SQLite file per kind under workbench.paths.cache_dir()/metrics/, keyed by a hash of
(component id, language, text), so a warm run of the same texts costs a lookup, and two
processes can share the cache (WAL). A component id names the model and its version, so
a new model never reads an old model's vectors.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np


def text_key(component: str, lang: str, text: str) -> str:
    return hashlib.sha256(f"{component}\0{lang}\0{text}".encode()).hexdigest()


def default_cache_path(kind: str) -> Path:
    from workbench.paths import cache_dir
    folder = cache_dir() / "metrics"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"{kind}.sqlite"


class KeyValueCache:
    """key → bytes in one SQLite table; in-memory when path is None (tests, --no-cache)."""

    _CHUNK = 500  # SQLite's default limit on host parameters is 999

    def __init__(self, path: Path | None) -> None:
        self._lock = threading.Lock()
        self._memory: dict[str, bytes] = {}
        self._db = None
        if path is not None:
            self._db = sqlite3.connect(str(path), timeout=60, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value BLOB NOT NULL)")
            self._db.commit()

    def get_many(self, keys: Sequence[str]) -> dict[str, bytes]:
        found = {k: self._memory[k] for k in keys if k in self._memory}
        missing = [k for k in dict.fromkeys(keys) if k not in found]
        if self._db is not None and missing:
            with self._lock:
                for i in range(0, len(missing), self._CHUNK):
                    chunk = missing[i:i + self._CHUNK]
                    rows = self._db.execute(
                        f"SELECT key, value FROM kv WHERE key IN ({','.join('?' * len(chunk))})", chunk).fetchall()
                    for k, v in rows:
                        found[k] = self._memory[k] = bytes(v)
        return found

    def put_many(self, items: dict[str, bytes]) -> None:
        self._memory.update(items)
        if self._db is not None and items:
            with self._lock:
                self._db.executemany("INSERT OR REPLACE INTO kv VALUES (?, ?)", list(items.items()))
                self._db.commit()


class VectorCache:
    """Embedding vectors (float32) by text key."""

    def __init__(self, path: Path | None) -> None:
        self.kv = KeyValueCache(path)

    def get_many(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        return {k: np.frombuffer(v, dtype=np.float32) for k, v in self.kv.get_many(keys).items()}

    def put_many(self, items: dict[str, np.ndarray]) -> None:
        self.kv.put_many({k: np.asarray(v, dtype=np.float32).tobytes() for k, v in items.items()})


class JsonCache:
    """Small JSON values (summaries, cross-validated accuracies) by key."""

    def __init__(self, path: Path | None) -> None:
        self.kv = KeyValueCache(path)

    def get_many(self, keys: Sequence[str]) -> dict[str, object]:
        return {k: json.loads(v) for k, v in self.kv.get_many(keys).items()}

    def put_many(self, items: dict[str, object]) -> None:
        self.kv.put_many({k: json.dumps(v, ensure_ascii=False).encode() for k, v in items.items()})


def content_hash(parts: Iterable[str]) -> str:
    """One hash over many texts (the data a classifier was cross-validated on)."""
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode())
        h.update(b"\0")
    return h.hexdigest()
