"""On-disk caches for what metrics derive with models: embeddings, summaries, results.

One SQLite file per kind under workbench.infra.paths.cache_dir()/metrics/, keyed by a hash of
(component id, language, text), so a warm run of the same texts costs a lookup, and two
processes can share the cache (WAL; the file is a workbench.store.cache.KeyValueCache). A
component id names the model and its version, so a new model never reads an old model's vectors.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from workbench.store.cache import KeyValueCache


def text_key(component: str, lang: str, text: str) -> str:
    return hashlib.sha256(f"{component}\0{lang}\0{text}".encode()).hexdigest()


def default_cache_path(kind: str) -> Path:
    from workbench.infra.paths import cache_dir
    folder = cache_dir() / "metrics"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"{kind}.sqlite"


class VectorCache:
    """Embedding vectors (float32) by text key."""

    def __init__(self, path: Path | None) -> None:
        self.kv: KeyValueCache[bytes] = KeyValueCache(path)

    def get_many(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        return {k: np.frombuffer(v, dtype=np.float32) for k, v in self.kv.get_many(keys).items()}

    def put_many(self, items: Mapping[str, np.ndarray]) -> None:
        self.kv.put_many({k: np.asarray(v, dtype=np.float32).tobytes() for k, v in items.items()})


class JsonCache:
    """Small JSON values (summaries, cross-validated accuracies) by key."""

    def __init__(self, path: Path | None) -> None:
        self.kv: KeyValueCache[bytes] = KeyValueCache(path)

    def get_many(self, keys: Sequence[str]) -> dict[str, Any]:  # JSON values, as json.loads gives them
        return {k: json.loads(v) for k, v in self.kv.get_many(keys).items()}

    def put_many(self, items: Mapping[str, object]) -> None:
        self.kv.put_many({k: json.dumps(v, ensure_ascii=False).encode() for k, v in items.items()})


def content_hash(parts: Iterable[str]) -> str:
    """One hash over many texts (the data a classifier was cross-validated on)."""
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode())
        h.update(b"\0")
    return h.hexdigest()
