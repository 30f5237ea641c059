"""One-mask inputs and batch-invariant forward passes through a frozen encoder.

Training sentences and inference windows go through the same code, the masked-LM
wrapper that fill-mask uses (workbench.mlm.masked_lm.MaskedLM; windows become parts with
workbench.adapters.masked_lm.base.window_parts): text and mask runs go in as parts, so a
literal "[MASK]" in a document cannot add a mask; a window longer than the model's limit is
cropped around the target. EMAT needs the encoder's state at the target mask (its own head
scores tokens and phrases), hence the forward pass here.

Batch invariance: the forward passes are MaskedLM.fixed_shape_calls, one call shape per
length bucket whatever the batch, so a slot gets the same candidates alone as in any
batch, in every number format (tests/mtc checks it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from workbench.mlm.masked_lm import Encoded


@dataclass(frozen=True, slots=True)
class MaskedText:
    """A text with one target mask between `left` and `right` (a training sentence)."""
    left: str
    right: str

    def parts(self) -> tuple[list[str | int], int]:
        return [self.left, 1, self.right], 0


def encode_all(mlm, items: Sequence[tuple[list[str | int], int]]) -> list[tuple[Encoded, int]]:
    """(Encoded, target position) per item."""
    out = []
    for parts, focus in items:
        enc = mlm.encode(parts, focus=focus)
        out.append((enc, enc.masks[focus][0]))
    return out


def hidden_at(mlm, rows: Sequence[tuple[Encoded, int]], *,
              progress: Callable[[int], None] | None = None) -> torch.Tensor:
    """[len(rows), H] last-layer encoder states at each row's target; identical inputs run once."""
    unique: dict[tuple[int, ...], int] = {}
    wanted: dict[int, set[int]] = {}
    for enc, pos in rows:
        n = unique.setdefault(enc.ids, len(unique))
        wanted.setdefault(n, set()).add(pos)
    # Only the states at wanted positions are kept: whole [L, H] blocks for thousands of
    # training sentences would not fit in memory.
    states: dict[tuple[int, int], torch.Tensor] = {}
    with torch.inference_mode():
        for members, hidden in mlm.fixed_shape_calls(list(unique), mlm.encoder_states):
            hidden = hidden.cpu()
            for row, n in enumerate(members):
                for pos in wanted[n]:
                    states[(n, pos)] = hidden[row, pos].float().clone()
            if progress is not None:
                progress(len(members))
    if not rows:
        return torch.zeros((0, mlm.model.config.hidden_size))
    return torch.stack([states[(unique[enc.ids], pos)] for enc, pos in rows])
