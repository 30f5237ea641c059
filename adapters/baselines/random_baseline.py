"""Random baseline (003 §4): a random word form from the language's UD PUD vocabulary
(never a punctuation mark: workbench/text/pud_vocabulary.py). A draw for a Swedish original read as a
genitive is put in the genitive by the engine (`-o genitive=false`: not; workbench.text.swedish_genitive)."""

from __future__ import annotations

from collections.abc import Sequence

from workbench.adapters.baselines.config import BaselineConfig, baseline_signature
from workbench.generator_contract.base import Generator, Prediction
from workbench.text.pud_vocabulary import VOCABULARY, PudInventory, sample, slot_rng
from workbench.text.slots import Slot


class RandomBaseline(Generator):
    name = "random"
    # A word-list generator: well under a millisecond a span (the plan's estimate without a stored run).
    spans_per_second_estimate = 2000.0
    stochastic = True  # forms drawn from the seed
    Config = BaselineConfig
    config: BaselineConfig

    def load(self) -> None:
        self.inventory = PudInventory()

    def generate(self, slots: Sequence[Slot]) -> list[Prediction]:
        # top_k distinct draws: the first is the pick, the rest let the leak guard skip one.
        out = []
        for s in slots:
            drawn = sample(slot_rng(self.options.seed, s), self.inventory.forms(s.lang), self.options.top_k)
            out.append(Prediction(drawn))
        return out

    def model_id(self) -> str:
        return "ud-pud"

    def signature_config(self) -> dict:
        return baseline_signature(self.config, VOCABULARY)

    def keeps_origin(self) -> bool:
        return self.config.keep_origin

    def reinflects_genitive(self) -> bool:
        return self.config.genitive
