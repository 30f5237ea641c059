"""Several seeds of one configuration (issue 40): `generate --seeds 13,14,15`, a benchmark's
`seeds = [13, 14, 15]`.

Each seed is a run of its own (the seed is in the signature, so each has its own run id, and a
single-seed run keeps the id it always had); the report gives mean ± sd across them beside each
run's own interval (workbench.metrics.seed_spread). A generator whose seed changes nothing
(Generator.draws_with_seed() is False: the masked LMs) is run once, with the first seed, and
`deterministic_note` says so.
"""

from __future__ import annotations

from collections.abc import Sequence

from workbench.generator_contract.base import INT64_MAX, INT64_MIN
from workbench.infra.errors import WorkbenchError


def check_seeds(values: object, where: str = "seeds") -> tuple[int, ...]:
    """The seeds as a tuple of distinct integers in the store's range, in the order given;
    WorkbenchError naming `where` for anything else (an empty list, a string, 13 twice)."""
    if not isinstance(values, (list, tuple)) or not values:
        raise WorkbenchError(f"{where} must be a non-empty list of integers, e.g. [13, 14, 15], not {values!r}")
    for value in values:
        if isinstance(value, bool) or not isinstance(value, int):
            raise WorkbenchError(f"{where} must be integers, not {value!r}")
        if not INT64_MIN <= value <= INT64_MAX:
            raise WorkbenchError(f"{where}: {value} is outside {INT64_MIN}..{INT64_MAX} (what the run store holds)")
    repeated = sorted({v for v in values if list(values).count(v) > 1})
    if repeated:
        raise WorkbenchError(f"{where}: seed {repeated[0]} given twice (each seed is one run)")
    return tuple(values)


def parse_seeds(text: str, where: str = "--seeds") -> tuple[int, ...]:
    """`13,14,15` (spaces allowed) as check_seeds gives it; WorkbenchError naming the bad part."""
    parts = [p.strip() for p in str(text).split(",")]
    values = []
    for part in parts:
        try:
            values.append(int(part))
        except ValueError:
            raise WorkbenchError(f"{where} {text!r}: {part!r} is not an integer (give seeds as 13,14,15)") from None
    return check_seeds(values, where)


def deterministic_note(generator: str, seeds: Sequence[int]) -> str:
    """What a run of a deterministic generator under several seeds says."""
    return (f"{generator} is deterministic (its seed changes no pseudonym): run once, with seed {seeds[0]}, "
            f"not once per seed of {', '.join(map(str, seeds))}")
