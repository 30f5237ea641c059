"""The tagger interface: UPOS of character ranges in texts.

The UPOS of a range is that of its right-most token (003 §4: multi-word PII take the
tag of their right-most constituent). Backends implement `_tag_texts` only; caching and
range mapping live here, once.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Sequence

# A tagged text: (token start, token end, UPOS) for every token.
Tokens = list[tuple[int, int, str]]


def right_most_upos(tokens: Tokens, start: int, end: int) -> str | None:
    """UPOS of the last token overlapping [start, end); None if no token does."""
    found = None
    for a, b, upos in tokens:
        if a >= end:
            break
        if b > start:
            found = upos
    return found


class TagCache:
    """sqlite cache: (tagger id, lang, text) -> tokens. Safe across processes (WAL)."""

    def __init__(self, path: Path | None) -> None:
        self._lock = threading.Lock()
        self._db = None
        if path is not None:
            self._db = sqlite3.connect(str(path), timeout=30, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("CREATE TABLE IF NOT EXISTS tags (key TEXT PRIMARY KEY, tokens TEXT NOT NULL)")
            self._db.commit()
        self._memory: dict[str, Tokens] = {}

    @staticmethod
    def key(tagger: str, lang: str, text: str) -> str:
        return hashlib.sha256(f"{tagger}\0{lang}\0{text}".encode()).hexdigest()

    def get_many(self, keys: Sequence[str]) -> dict[str, Tokens]:
        found = {k: self._memory[k] for k in keys if k in self._memory}
        missing = [k for k in keys if k not in found]
        if self._db is not None and missing:
            with self._lock:
                for i in range(0, len(missing), 500):
                    chunk = missing[i:i + 500]
                    rows = self._db.execute(f"SELECT key, tokens FROM tags WHERE key IN ({','.join('?' * len(chunk))})",
                                            chunk).fetchall()
                    for k, tokens in rows:
                        found[k] = self._memory[k] = [tuple(t) for t in json.loads(tokens)]
        return found

    def put_many(self, items: dict[str, Tokens]) -> None:
        self._memory.update(items)
        if self._db is not None and items:
            with self._lock:
                self._db.executemany("INSERT OR REPLACE INTO tags VALUES (?, ?)",
                                     [(k, json.dumps(v)) for k, v in items.items()])
                self._db.commit()


class Tagger(ABC):
    """Subclasses set `name` (recorded in run signatures) and implement `_tag_texts`."""

    name: str

    def __init__(self, cache_path: Path | None = None) -> None:
        self.cache = TagCache(cache_path)

    @abstractmethod
    def _tag_texts(self, lang: str, texts: Sequence[str]) -> list[Tokens]:
        """Tokenise and tag each text."""

    def tag_texts(self, lang: str, texts: Sequence[str]) -> list[Tokens]:
        keys = [TagCache.key(self.name, lang, t) for t in texts]
        found = self.cache.get_many(list(dict.fromkeys(keys)))
        todo = list(dict.fromkeys(t for t, k in zip(texts, keys) if k not in found))
        if todo:
            fresh = dict(zip((TagCache.key(self.name, lang, t) for t in todo), self._tag_texts(lang, todo)))
            self.cache.put_many(fresh)
            found.update(fresh)
        return [found[k] for k in keys]

    def tag_ranges(self, lang: str, items: Sequence[tuple[str, int, int]]) -> list[str | None]:
        """UPOS of each (text, start, end), batched over all texts."""
        tokens = self.tag_texts(lang, [text for text, _, _ in items])
        return [right_most_upos(t, a, b) for t, (_, a, b) in zip(tokens, items)]
