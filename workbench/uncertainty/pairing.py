"""Two runs' values on the same units, paired: the one rule for units in one run only.

A paired test compares the runs unit by unit, so a unit scored in only one run has nothing to
be compared with. By default that is refused (two runs over different corpora, or a run with
documents missing, should be noticed, not averaged over); `unpaired="drop"` leaves such units
out and counts them. A pair with a NaN on either side is left out and counted as well.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from workbench.infra.errors import InvalidValue, WorkbenchError
from workbench.uncertainty import resampling

UNPAIRED = ("refuse", "drop")
Docs = Mapping[Hashable, Hashable] | Callable[[Hashable], Hashable] | None


@dataclass(frozen=True, slots=True)
class Paired:
    """Both runs' sums over the same documents, in the same order."""

    a: resampling.Sums
    b: resampling.Sums
    n_values: int  # pairs kept
    n_dropped: int  # pairs with a NaN on either side
    n_unpaired: int  # units in one run only, left out


def pair(a: Any, b: Any, *, docs: Docs = None, denominators: tuple[Any, Any] | None = None,
         unpaired: str = "refuse", names: tuple[str, str] = ("A", "B")) -> Paired:
    """Pair two mappings unit id → value (dicts, or pandas Series indexed by unit id). With `docs`
    (a mapping or a function from unit id to document id) the units are spans clustered by
    document; `denominators` are two such mappings for a ratio of sums."""
    if unpaired not in UNPAIRED:
        raise InvalidValue(f"unpaired must be one of {', '.join(UNPAIRED)}, not {unpaired!r}")
    values_a, values_b = dict(a.items()), dict(b.items())
    only_a = [k for k in values_a if k not in values_b]
    only_b = [k for k in values_b if k not in values_a]
    if (only_a or only_b) and unpaired == "refuse":
        sides = [f"{len(keys)} unit(s) only in run {name} (first: {keys[0]!r})"
                 for keys, name in ((only_a, names[0]), (only_b, names[1])) if keys]
        raise WorkbenchError(f"runs {names[0]} and {names[1]} are not scored on the same units: "
                             f"{'; '.join(sides)}; compare runs over the same corpus, or leave such "
                             f"units out (unpaired='drop')")
    keys = [k for k in values_a if k in values_b]
    va = np.array([values_a[k] for k in keys], dtype=np.float64)
    vb = np.array([values_b[k] for k in keys], dtype=np.float64)
    da, db = np.ones_like(va), np.ones_like(vb)
    if denominators is not None:
        da, db = (_looked_up(mapping, keys, f"denominators of run {name}")
                  for mapping, name in zip(denominators, names))
    kept = ~(np.isnan(va) | np.isnan(vb) | np.isnan(da) | np.isnan(db))
    kept_keys = [k for k, keep in zip(keys, kept.tolist()) if keep]
    cluster = None if docs is None else [_doc_of(docs, k) for k in kept_keys]
    sums_a = resampling.unit_sums(va[kept], cluster, da[kept])
    sums_b = resampling.unit_sums(vb[kept], cluster, db[kept])
    return Paired(sums_a, sums_b, len(kept_keys), int((~kept).sum()), len(only_a) + len(only_b))


def _looked_up(mapping: Any, keys: list[Hashable], what: str) -> np.ndarray:
    found = dict(mapping.items())
    missing = [k for k in keys if k not in found]
    if missing:
        raise InvalidValue(f"{what}: none for {len(missing)} unit(s) (first: {missing[0]!r})")
    return np.array([found[k] for k in keys], dtype=np.float64)


def _doc_of(docs: Mapping[Hashable, Hashable] | Callable[[Hashable], Hashable], key: Hashable) -> Hashable:
    if callable(docs):
        return docs(key)
    if key not in docs:
        raise InvalidValue(f"no document id for span {key!r}")
    return docs[key]
