"""NS3 and NAd (000 §2): naive multi-token infilling, masks filled left to right.

NS3 (Naive Static-3) gives every span three masks; NAd (Naive Adaptive) one mask per
sub-word of the original. A slot's masks are filled left to right: the first mask's
`branches` best word-initial pieces each start a candidate, and every further mask of
the target takes the best piece given the pieces before it (one forward pass per
position, all candidates and slots of a batch together). Other spans of the window keep
their masks (maskL) or carry earlier picks (repL), as for fill-mask.

NAd needs the original's sub-word count, which depends on the model's tokenizer. The
slot carries only the original's length in characters (Gap.n_chars; never its text), and
NAd turns it into a mask count with the model's characters-per-piece rate measured on
UD PUD text of the language. See docs/mlm.md for how often that equals the true count.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.adapters.masked_lm.base import MlmConfig, MlmGenerator, target_logits, window_parts
from workbench.mlm.masked_lm import Encoded
from workbench.text.slots import Gap, Slot

MAX_MASKS = 8  # NAd: at most this many masks per span (a 200-character span would otherwise get ~50)


@dataclass(frozen=True, slots=True)
class MultiMaskConfig(MlmConfig):
    branches: int = 0  # first-piece alternatives, each completed greedily; 0: top_k

    def __post_init__(self) -> None:
        MlmConfig.__post_init__(self)
        if self.branches < 0:
            raise ValueError("branches must be >= 0 (0: top_k)")


class _MultiMask(MlmGenerator):
    Config = MultiMaskConfig
    config: MultiMaskConfig

    def masks_for(self, lang: str, gap: Gap) -> int:
        raise NotImplementedError

    def _fill(self, lm, slots: list[Slot], lang: str) -> list[list[str]]:
        k = self.config.branches or self.options.top_k
        encoded: list[tuple[Encoded, int]] = []
        for s in slots:
            parts, target = window_parts(s, lambda gap: self.masks_for(lang, gap))
            encoded.append((lm.encode(parts, focus=target), target))
        # Step 1: every mask still open; the first mask of the target gives the branches
        # (slots of one window share this pass).
        states = []  # (slot number, row ids, target mask positions, chosen piece ids)
        for n, ((enc, t), logits) in enumerate(zip(encoded, target_logits(lm, encoded))):
            for piece in lm.top_pieces(logits, k, True, enc.after_space[t]):
                states.append((n, list(enc.ids), enc.masks[t], [piece]))
        # Steps 2…: each branch fills its next mask with the best piece given its prefix.
        step = 1
        while any(len(m) > step for _, _, m, _ in states):
            active = [st for st in states if len(st[2]) > step]
            rows = []
            for _, ids, masks, chosen in active:
                for p, piece in zip(masks, chosen):
                    ids[p] = piece
                rows.append(Encoded(tuple(ids), (masks,), (False,), ("",)))
            logits = lm.logits(rows, [[st[2][step]] for st in active])
            for st, lg in zip(active, logits):
                st[3].append(lm.top_pieces(lg[0], 1, False, False)[0])
            step += 1
        words: list[list[str]] = [[] for _ in slots]
        for n, _, _, chosen in states:
            enc, t = encoded[n]
            text = lm.text_of(chosen, enc.left[t])
            if text and text not in words[n]:
                words[n].append(text)
        return words


class NS3(_MultiMask):
    name = "ns3"
    # Masked LMs: fill-mask and MTC at 40 to 80 spans/s in float32 on this project's 2-core CPU
    # (docs/speed.md), rounded down; the multi-mask ones fill several masks a span.
    spans_per_second_estimate = 10.0

    def masks_for(self, lang: str, gap: Gap) -> int:
        return 3  # 000 §2: "replace every marked redaction with 3 consecutive mask tokens"


class NAd(_MultiMask):
    name = "nad"
    # Masked LMs: fill-mask and MTC at 40 to 80 spans/s in float32 on this project's 2-core CPU
    # (docs/speed.md), rounded down; the multi-mask ones fill several masks a span.
    spans_per_second_estimate = 10.0
    _rates: dict[str, float]  # characters per sub-word piece by language, measured on first use

    def masks_for(self, lang: str, gap: Gap) -> int:
        rate = self._rates.get(lang) if hasattr(self, "_rates") else None
        if rate is None:
            from workbench.mlm.subwords import chars_per_piece
            self._rates = getattr(self, "_rates", {})
            rate = self._rates[lang] = chars_per_piece(self.lm(lang).tokenizer, lang)
        return estimate_pieces(gap.n_chars, rate)


def estimate_pieces(n_chars: int, chars_per_piece: float) -> int:
    """One mask per estimated original sub-word: at least 1, at most MAX_MASKS."""
    return max(1, min(MAX_MASKS, round(n_chars / chars_per_piece)))
