"""Stable keys for cached intervals and paired tests: the same inputs and settings give the same key
in any process (a SHA-256 of a canonical encoding, never Python's hash()), so a report over stored
runs reads its intervals back instead of drawing them again (workbench.store.cache.KeyValueCache,
with Interval.to_json / from_json as encode / decode)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Hashable, Sequence

import numpy as np

from workbench.uncertainty.defaults import VERSION


def interval_key(values: Sequence[float] | np.ndarray, unit_ids: Sequence[Hashable], *, statistic: str,
                 resamples: int, seed: int, method: str, level: float,
                 docs: Sequence[Hashable] | None = None,
                 denominators: Sequence[float] | np.ndarray | None = None) -> str:
    """The identity of an interval: the values (with their unit ids, documents for span-level
    metrics, denominators for a ratio), the statistic's name, resamples, seed, method and level, and
    VERSION (bumped when the drawing or the interval rule changes)."""
    parts = [_settings("interval", statistic=statistic, resamples=int(resamples), seed=int(seed), method=method,
                       level=float(level)),
             _values(values), _ids(unit_ids), _ids(docs), _values(denominators)]
    return "uncertainty-interval-" + hashlib.sha256(b"".join(parts)).hexdigest()


def paired_key(values_a: Sequence[float] | np.ndarray, values_b: Sequence[float] | np.ndarray,
               unit_ids: Sequence[Hashable], *, test: str, statistic: str, draws: int, resamples: int, seed: int,
               method: str, level: float, docs: Sequence[Hashable] | None = None) -> str:
    """The identity of a paired test's result, as `interval_key` (both runs' values on the same unit ids)."""
    parts = [_settings("paired", test=test, statistic=statistic, draws=int(draws), resamples=int(resamples),
                       seed=int(seed), method=method, level=float(level)),
             _values(values_a), _values(values_b), _ids(unit_ids), _ids(docs)]
    return "uncertainty-paired-" + hashlib.sha256(b"".join(parts)).hexdigest()


def _settings(kind: str, **settings: object) -> bytes:
    text = json.dumps({"kind": kind, "version": VERSION, **settings}, sort_keys=True)
    return len(text).to_bytes(8, "little") + text.encode()


def _values(values: Sequence[float] | np.ndarray | None) -> bytes:
    if values is None:
        return b"\x00"
    array = np.asarray(values, dtype=np.float64).reshape(-1)
    # One bit pattern for every NaN, and -0.0 as 0.0: equal values, equal key.
    array = np.where(np.isnan(array), np.nan, array) + 0.0
    return b"\x01" + len(array).to_bytes(8, "little") + array.astype("<f8").tobytes()


def _ids(ids: Sequence[Hashable] | None) -> bytes:
    if ids is None:
        return b"\x00"
    items = ids.tolist() if isinstance(ids, np.ndarray) else list(ids)
    # Plain strings or plain ints (the usual ids) skip the per-id canonical form; a list that only
    # becomes such after it (numpy's str_ and int64, as pandas gives) is encoded the same way.
    if all(type(i) is str for i in items):
        form: list[object] = ["s", items]
    elif all(type(i) is int for i in items):
        form = ["i", items]
    else:
        tagged = [_canonical(i) for i in items]
        tags = {tag for tag, _ in tagged}
        form = [tags.pop(), [v for _, v in tagged]] if tags in ({"s"}, {"i"}) else ["c", tagged]
    text = json.dumps(form)
    return b"\x01" + len(text).to_bytes(8, "little") + text.encode()


def _canonical(value: Hashable) -> tuple[str, object]:
    """An id as JSON, keeping 1 and "1" apart and numpy's scalars equal to Python's (pandas gives those)."""
    if isinstance(value, str):
        return "s", str(value)
    if isinstance(value, bool | np.bool_):
        return "b", bool(value)
    if isinstance(value, int | np.integer):
        return "i", int(value)
    if isinstance(value, float | np.floating):
        return "f", float(value)
    if isinstance(value, tuple):
        return "t", [_canonical(v) for v in value]
    return "r", repr(value)
