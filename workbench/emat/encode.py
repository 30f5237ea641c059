"""One-mask inputs and batch-invariant forward passes through a frozen encoder.

Training sentences and inference windows go through the same code, the masked-LM
wrapper that fill-mask uses (workbench.mlm.masked_lm.MaskedLM; windows become parts with
workbench.adapters.mlm_base.window_parts): text and mask runs go in as parts, so a literal "[MASK]" in a document cannot add a mask; a window longer
than the model's limit is cropped around the target. EMAT needs the encoder's state at
the target mask (its own head scores tokens and phrases), hence the forward pass here.

Batch invariance: padding a sequence changes its float results in the last bits, which
can swap near-tied candidates. Each input is padded to its own length rounded up to a
multiple of MaskedLM's BUCKET, and only inputs of one padded length share a forward
pass, so a slot gets the same candidates alone as in any batch (tests/mtc checks it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import torch

from workbench.mlm.masked_lm import BUCKET, Encoded


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


def hidden_at(mlm, rows: Sequence[tuple[Encoded, int]], *, batch_size: int = 32,
              progress: Callable[[int], None] | None = None) -> torch.Tensor:
    """[len(rows), H] last-layer encoder states at each row's target; identical inputs run once."""
    unique: dict[tuple[int, ...], int] = {}
    wanted: dict[int, set[int]] = {}
    for enc, pos in rows:
        n = unique.setdefault(enc.ids, len(unique))
        wanted.setdefault(n, set()).add(pos)
    sequences = list(unique)
    buckets: dict[int, list[int]] = {}
    for n, ids in enumerate(sequences):
        buckets.setdefault(-(-len(ids) // BUCKET) * BUCKET, []).append(n)
    # Only the states at wanted positions are kept: whole [L, H] blocks for thousands of
    # training sentences would not fit in memory.
    states: dict[tuple[int, int], torch.Tensor] = {}
    encoder = mlm.model.base_model
    device = next(mlm.model.parameters()).device
    with torch.inference_mode():
        for length in sorted(buckets):
            members = buckets[length]
            for i in range(0, len(members), batch_size):
                chunk = members[i:i + batch_size]
                ids = torch.full((len(chunk), length), mlm.pad_id, dtype=torch.long)
                attention = torch.zeros((len(chunk), length), dtype=torch.long)
                for row, n in enumerate(chunk):
                    ids[row, :len(sequences[n])] = torch.tensor(sequences[n])
                    attention[row, :len(sequences[n])] = 1
                last = encoder(input_ids=ids.to(device), attention_mask=attention.to(device))[0].cpu()
                for row, n in enumerate(chunk):
                    for pos in wanted[n]:
                        states[(n, pos)] = last[row, pos].float().clone()
                if progress is not None:
                    progress(len(chunk))
    if not rows:
        return torch.zeros((0, mlm.model.config.hidden_size))
    return torch.stack([states[(unique[enc.ids], pos)] for enc, pos in rows])
