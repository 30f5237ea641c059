"""fill-mask (003 §3.2, §4): one mask per span, the model's top-k whole word forms.

maskL: every span of the window is masked and slots that share a window share one
forward pass (all their masks are read from it). repL: each slot's window carries this
run's earlier picks left of the target, so each is its own row; the engine batches the
k-th slot of many documents and the rows run together, with logits identical to one at
a time (length buckets, see workbench.mlm.masked_lm).

Candidates are ranked only; the engine applies the leak guard and the UPOS filter
(workbench.selection), so the generator never needs the original text.
"""

from __future__ import annotations

from typing import Sequence

from workbench.adapters.mlm_base import MlmGenerator, one_mask, window_parts
from workbench.generators.base import Prediction
from workbench.text.slots import Slot


class FillMask(MlmGenerator):
    name = "fill-mask"

    def generate(self, slots: Sequence[Slot]) -> list[Prediction]:
        out: list[Prediction | None] = [None] * len(slots)
        by_lang: dict[str, list[int]] = {}
        for n, s in enumerate(slots):
            by_lang.setdefault(s.lang, []).append(n)
        for lang, members in by_lang.items():
            lm = self.lm(lang)
            rows, row_of, seen = [], [], {}
            for n in members:
                parts, target = window_parts(slots[n], one_mask)
                enc = lm.encode(parts, focus=target)
                # Slots of one window (maskL) encode identically: one row, one forward pass.
                if enc.ids not in seen:
                    seen[enc.ids] = len(rows)
                    rows.append(enc)
                row_of.append((n, seen[enc.ids], target))
            # Logits at every mask of a row (not only the asked ones), so a row's numbers
            # do not depend on which other slots came in the batch.
            positions = [[m for gap in r.masks for m in gap] for r in rows]
            logits = lm.logits(rows, positions)
            for n, r, target in row_of:
                row = rows[r]
                at = positions[r].index(row.masks[target][0])
                words = lm.top_words(logits[r][at], self.options.top_k, row.after_space[target], row.left[target])
                out[n] = Prediction(tuple(words)) if words else Prediction((), failed=True, note="no word candidate")
        return out
