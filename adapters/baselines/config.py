"""The baselines' one setting beyond 003 (issue 27): Swedish genitive reinflection."""

from __future__ import annotations

from dataclasses import dataclass

from workbench.errors import InvalidValue
from workbench.text.slots import Slot
from workbench.text.swedish_genitive import inflect_for_slot


@dataclass(frozen=True, slots=True)
class BaselineConfig:
    # A PUD form drawn for a Swedish original tagged Case=Gen is put in the genitive
    # (workbench.text.swedish_genitive): off by default, so 003's baselines keep their output and ids.
    genitive: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.genitive, bool):
            raise InvalidValue(f"genitive must be true or false, not {self.genitive!r}")

    def signature(self) -> dict:
        """What the run signature adds to the vocabulary: the setting only when on."""
        return {"genitive": True} if self.genitive else {}

    def inflected(self, candidates: tuple[str, ...], slot: Slot) -> tuple[str, ...]:
        """The draws for `slot`, in the genitive when the setting is on and the slot's original
        is a Swedish genitive (Case=Gen tagged in context, Slot.features)."""
        return inflect_for_slot(candidates, slot.lang, slot.features) if self.genitive else candidates
