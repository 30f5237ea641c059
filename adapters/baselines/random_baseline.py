"""Random baseline (003 §4): a random word form from the language's UD PUD vocabulary
(never a punctuation mark: workbench/text/pud_vocabulary.py)."""

from __future__ import annotations

from typing import Sequence

from workbench.text.pud_vocabulary import VOCABULARY, PudInventory, sample, slot_rng
from workbench.generators.base import Generator, Prediction
from workbench.text.slots import Slot


class RandomBaseline(Generator):
    name = "random"

    def load(self) -> None:
        self.inventory = PudInventory()

    def generate(self, slots: Sequence[Slot]) -> list[Prediction]:
        # top_k distinct draws: the first is the pick, the rest let the leak guard skip one.
        return [Prediction(sample(slot_rng(self.options.seed, s), self.inventory.forms(s.lang), self.options.top_k))
                for s in slots]

    def model_id(self) -> str:
        return "ud-pud"

    def signature_config(self) -> dict:
        # Which PUD forms are drawn from: runs drawn from another selection get another id.
        return {"vocabulary": VOCABULARY}
