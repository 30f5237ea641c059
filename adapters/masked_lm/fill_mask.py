"""fill-mask (003 §3.2, §4): one mask per span, the model's top-k whole word forms.

maskL: every span of the window is masked and slots that share a window share one
forward pass (all their masks are read from it). repL: each slot's window carries this
run's earlier picks left of the target, so each is its own row; the engine batches the
k-th slot of many documents and the rows run together, with logits identical to one at
a time (length buckets, see workbench.mlm.masked_lm).

Candidates are ranked only; the engine applies the leak guard and the UPOS filter
(workbench.generation.pseudonym_choice), so the generator never needs the original text.
"""

from __future__ import annotations

from workbench.adapters.masked_lm.base import MlmGenerator, one_mask, target_logits, window_parts
from workbench.text.slots import Slot


class FillMask(MlmGenerator):
    name = "fill-mask"
    # Masked LMs: fill-mask and MTC at 40 to 80 spans/s in float32 on this project's 2-core CPU
    # (docs/speed.md), rounded down; the multi-mask ones fill several masks a span.
    spans_per_second_estimate = 30.0

    def _fill(self, lm, slots: list[Slot], lang: str) -> list[list[str]]:
        encoded = []
        for slot in slots:
            parts, target = window_parts(slot, one_mask)
            encoded.append((lm.encode(parts, focus=target), target))
        return [lm.top_words(logits, self.options.top_k, enc.after_space[t], enc.left[t])
                for (enc, t), logits in zip(encoded, target_logits(lm, encoded))]
