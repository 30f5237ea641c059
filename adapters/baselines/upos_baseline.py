"""UPOS baseline (003 §4): a random PUD form whose gold UPOS equals the original span's.

The original's UPOS is that of its right-most word (token not tagged PUNCT or SYM) as
tagged in context (Slot.upos), PROPN for a name span whatever the tagger read (the name rule,
workbench.generation.name_upos). When it is unknown or PUD has no form with it (PUNCT and SYM
included: the inventory holds no punctuation), the draw falls back to the whole vocabulary
and the prediction says so in its note. A draw for a Swedish original read as a genitive
is put in the genitive by the engine (`-o genitive=false`: not; workbench.text.swedish_genitive).
"""

from __future__ import annotations

from collections.abc import Sequence

from workbench.adapters.baselines.config import BaselineConfig, baseline_signature
from workbench.generator_contract.base import Generator, Prediction
from workbench.text.pud_vocabulary import VOCABULARY, PudInventory, sample, slot_rng
from workbench.text.slots import Slot


class UposBaseline(Generator):
    name = "upos"
    # A word-list generator: well under a millisecond a span (the plan's estimate without a stored run).
    spans_per_second_estimate = 2000.0
    stochastic = True  # forms drawn from the seed
    Config = BaselineConfig
    config: BaselineConfig

    def load(self) -> None:
        self.inventory = PudInventory()

    def reads_original_upos(self) -> bool:
        return True

    def generate(self, slots: Sequence[Slot]) -> list[Prediction]:
        out = []
        for s in slots:
            rng = slot_rng(self.options.seed, s)
            if s.upos and (pool := self.inventory.forms(s.lang, s.upos)):
                picks = sample(rng, pool, self.options.top_k)
                out.append(Prediction(picks, candidate_upos=(s.upos,) * len(picks)))
            else:
                drawn = sample(rng, self.inventory.forms(s.lang), self.options.top_k)
                out.append(Prediction(drawn, note=f"no PUD form with UPOS {s.upos}"))
        return out

    def model_id(self) -> str:
        return "ud-pud"

    def signature_config(self) -> dict:
        return baseline_signature(self.config, VOCABULARY)

    def keeps_origin(self) -> bool:
        return self.config.keep_origin

    def reinflects_genitive(self) -> bool:
        return self.config.genitive
