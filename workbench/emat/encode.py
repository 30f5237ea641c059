"""One-mask inputs and batch-invariant forward passes through a frozen encoder.

Training sentences and inference windows go through the same code: text left of the
mask, one mask token, text right of it. A window longer than `max_length` tokens is cut
to a `max_length` window centred on the mask (the target is never cut away).

Batch invariance: padding a sequence changes its float results in the last bits (the
attention reductions run over a different length), which can swap near-tied candidates.
So each input is padded to a length that depends on itself only (its length rounded up
to a multiple of `bucket`), and inputs of one padded length share forward passes. How
inputs are grouped into batches then does not change any result: a slot gives the
same candidates alone as in any batch (tests/mtc checks this).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import torch

from workbench.text.slots import Gap, Slot


@dataclass(frozen=True, slots=True)
class MaskedText:
    """A text with one target mask between `left` and `right`."""
    left: str
    right: str


def slot_text(slot: Slot, mask_token: str) -> MaskedText:
    """The slot's window around its target; other masked gaps get a mask token too (maskL),
    filled gaps their earlier pick (repL)."""
    left: list[str] = []
    right: list[str] = []
    side = left
    for piece in slot.pieces:
        if isinstance(piece, Gap) and piece.span_index == slot.span_index:
            side = right
            continue
        if isinstance(piece, str):
            side.append(piece)
        else:
            side.append(mask_token if piece.masked else piece.fill)
    return MaskedText("".join(left), "".join(right))


@dataclass(frozen=True, slots=True)
class EncodedInput:
    ids: tuple[int, ...]  # with the model's special tokens
    position: int  # index of the target mask in ids


class MaskEncoder:
    """Tokenises one-mask texts and returns the encoder's hidden state at each target mask."""

    def __init__(self, model, tokenizer, *, max_length: int = 256, bucket: int = 16, batch_size: int = 16) -> None:
        if tokenizer.mask_token_id is None:
            raise ValueError("the tokenizer has no mask token")
        limit = getattr(model.config, "max_position_embeddings", max_length)
        # RoBERTa reserves two positions for the padding offset.
        if getattr(model.config, "model_type", "") in ("roberta", "xlm-roberta", "camembert"):
            limit -= 2
        self.model = model
        self.tokenizer = tokenizer
        self.max_length = min(max_length, limit)
        self.bucket = bucket
        self.batch_size = batch_size
        probe = tokenizer.build_inputs_with_special_tokens([tokenizer.mask_token_id])
        self._prefix = probe.index(tokenizer.mask_token_id)
        self._n_special = len(probe) - 1

    def encode(self, texts: Sequence[MaskedText]) -> list[EncodedInput]:
        tok = self.tokenizer
        mask = tok.mask_token
        joined = [t.left + mask + t.right for t in texts]
        batch = tok(joined, add_special_tokens=False, return_offsets_mapping=True)
        budget = self.max_length - self._n_special
        out = []
        for text, ids, offsets in zip(texts, batch["input_ids"], batch["offset_mapping"]):
            at = len(text.left)
            pos = next((i for i, (tid, (a, b)) in enumerate(zip(ids, offsets))
                        if tid == tok.mask_token_id and a < at + len(mask) and b > at), None)
            if pos is None:
                raise ValueError(f"the target mask was lost in tokenisation: {text.left[-40:]!r}|{text.right[:40]!r}")
            if len(ids) > budget:
                start = max(0, min(pos - budget // 2, len(ids) - budget))
                ids, pos = ids[start:start + budget], pos - start
            full = tok.build_inputs_with_special_tokens(list(ids))
            out.append(EncodedInput(tuple(full), pos + self._prefix))
        return out

    def padded_length(self, n: int) -> int:
        return min(-(-n // self.bucket) * self.bucket, max(n, self.max_length))

    def hidden(self, inputs: Sequence[EncodedInput], progress=None) -> torch.Tensor:
        """[len(inputs), H] last-layer states at the target masks; identical inputs run once."""
        unique: dict[tuple[int, ...], int] = {}
        wanted: dict[int, set[int]] = {}
        for item in inputs:
            n = unique.setdefault(item.ids, len(unique))
            wanted.setdefault(n, set()).add(item.position)
        sequences = list(unique)
        by_length: dict[int, list[int]] = {}
        for n, ids in enumerate(sequences):
            by_length.setdefault(self.padded_length(len(ids)), []).append(n)
        # Only the states at wanted positions are kept: a whole [L, H] per input would not fit
        # in memory for thousands of training sentences.
        states: dict[tuple[int, int], torch.Tensor] = {}
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0
        encoder = self.model.base_model
        with torch.inference_mode():
            for length in sorted(by_length):
                members = by_length[length]
                for i in range(0, len(members), self.batch_size):
                    chunk = members[i:i + self.batch_size]
                    ids = torch.full((len(chunk), length), pad, dtype=torch.long)
                    attention = torch.zeros((len(chunk), length), dtype=torch.long)
                    for row, n in enumerate(chunk):
                        seq = sequences[n]
                        ids[row, :len(seq)] = torch.tensor(seq)
                        attention[row, :len(seq)] = 1
                    last = encoder(input_ids=ids, attention_mask=attention).last_hidden_state
                    for row, n in enumerate(chunk):
                        for pos in wanted[n]:
                            states[(n, pos)] = last[row, pos].clone()
                    if progress is not None:
                        progress(len(chunk))
        if not inputs:
            return torch.zeros((0, self.model.config.hidden_size))
        return torch.stack([states[(unique[item.ids], item.position)] for item in inputs])
