"""KeyValueCache (workbench.store.cache): the one cache class of the metrics caches and the tagger's TagCache."""

from __future__ import annotations

import json
import sqlite3

from workbench.metrics.backends.cache import JsonCache
from workbench.store.cache import KeyValueCache
from workbench.upos.base import TagCache


def test_values_outlive_the_process_and_are_read_in_chunks(tmp_path):
    path = tmp_path / "kv.sqlite"
    KeyValueCache(path).put_many({f"k{i}": bytes([i % 256]) for i in range(1200)})  # more than one chunk
    found = KeyValueCache(path).get_many([f"k{i}" for i in range(1200)] + ["absent"])
    assert len(found) == 1200 and found["k7"] == b"\x07" and "absent" not in found


def test_without_a_path_the_cache_lives_in_memory_only(tmp_path):
    cache = JsonCache(None)
    cache.put_many({"a": {"x": 1}})
    assert cache.get_many(["a", "b"]) == {"a": {"x": 1}}
    assert list(tmp_path.iterdir()) == []


def test_a_tag_cache_file_written_before_the_shared_class_is_read_as_tokens(tmp_path):
    # The layout TagCache always wrote: table tags, column tokens, JSON text.
    path = tmp_path / "tags.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE tags (key TEXT PRIMARY KEY, tokens TEXT NOT NULL)")
    db.execute("INSERT INTO tags VALUES (?, ?)", ("old", json.dumps([[0, 4, "PROPN"], [5, 6, "PUNCT"]])))
    db.commit()
    db.close()
    cache = TagCache(path)
    assert cache.get_many(["old"]) == {"old": [(0, 4, "PROPN"), (5, 6, "PUNCT")]}
    cache.put_many({"new": [(0, 2, "NOUN")]})
    stored = sqlite3.connect(path).execute("SELECT tokens FROM tags WHERE key='new'").fetchone()[0]
    assert json.loads(stored) == [[0, 2, "NOUN"]]
    assert TagCache(path).get_many(["new"]) == {"new": [(0, 2, "NOUN")]}
