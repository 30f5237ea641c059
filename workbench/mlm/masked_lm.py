"""One masked LM ready for filling: tokenizer, model, piece table, recaser.

Used by fill-mask, NS3/NAd, the offline build's evaluation and the benchmark. Texts go
in as pieces (plain text and mask runs), so the mask positions are known exactly and a
literal "[MASK]" in a document cannot add a mask.

Batched forward passes give the same logits as one text at a time, in every number
format and on every kernel path: every encoder call has one shape per length bucket. A
row is padded to its own length rounded up to a multiple of BUCKET tokens, only rows of
one bucket share a call, and every call of a bucket has exactly rows_per_call(bucket)
rows (for the device kind), filled up with padding rows. A matrix product's kernel, and
so the last bits of its result, may depend on the shape it gets (bfloat16 on AMX tiles
rounded a row differently in a call of 3 rows than alone, issue 23; padding to the
batch's longest row moved short rows by ~1e-5 in float32); it never depends on what the
other rows hold. So a row's numbers are the same whichever windows came with it: repL
batched equals one at a time, and a resumed run equals an uninterrupted one. The output
head runs over the mask positions of all rows together in calls of one fixed shape
(HEAD_ROWS), for the same reason. See tests/mlm/test_masked_lm.py.

The encoder may run in bfloat16 while the head stays float32 (workbench.mlm.loading.place).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.infra.devices import CPU
from workbench.mlm.words import PieceTable, Recaser, dedupe, piece_table, pieces_to_text

if TYPE_CHECKING:
    from torch import Tensor

BUCKET = 16  # tokens; padding waste per row < BUCKET
# Tokens per encoder call (rows × bucket length): rows_per_call(length) rows in every call of
# that bucket, the last call of a batch filled up with padding rows. On the CPU, measured with
# the offline MLM (bench/bench_speed.py --only shapes, float32): a call costs ~30 ms whatever
# its size plus its tokens' work, so short rows gain from sharing a call (16 tokens: 36 ms a
# row alone, 8 ms in calls of 16 rows) and rows of 128 tokens barely do (62 → 48-51 ms); a
# single window (repL one at a time, the last call of a bucket) pays for up to
# CALL_TOKENS - length tokens of padding (128 tokens: 101 ms in a call of 2 rows against 62
# alone). A GPU needs many rows per call to be busy, and pays little per padding row.
CALL_TOKENS = {CPU: 256}
CALL_TOKENS_ACCELERATOR = 4096
# Mask positions per output-head call (see MaskedLM._project). Measured here (30k × 384 head,
# float32): 6.7 ms for 1 row, 11.3 ms for 16, 14.9 ms for 32 — a one-slot call pays for the
# padding, a batch pays per call; 16 keeps both near their best.
HEAD_ROWS = 16
_INITIAL = re.compile(r"(^|\s)\w\.$")


def bucket_length(n_tokens: int) -> int:
    """The padded length of a row of n_tokens: the next multiple of BUCKET."""
    return -(-n_tokens // BUCKET) * BUCKET


def rows_per_call(length: int, device: str = CPU) -> int:
    """Rows in every encoder call of a bucket on a device (its kind: cpu, cuda, mps): a function
    of the bucket and the device alone, never of the batch."""
    tokens = CALL_TOKENS.get(str(device).split(":", 1)[0], CALL_TOKENS_ACCELERATOR)
    return max(1, tokens // length)


@dataclass(frozen=True, slots=True)
class Encoded:
    """A window as model input: ids (with the model's own start/end tokens) and, per gap,
    the positions of its masks."""
    ids: tuple[int, ...]
    masks: tuple[tuple[int, ...], ...]  # per gap in order: its mask positions in ids
    after_space: tuple[bool, ...]  # per gap: the text before it ends in white space
    left: tuple[str, ...]  # per gap: the text before it (for re-capitalising)


class MaskedLM:
    def __init__(self, tokenizer, model, source: str, model_dir: str | Path | None = None,
                 max_tokens: int | None = None) -> None:
        import torch
        self.torch = torch
        self.tokenizer = tokenizer
        self.model = model.eval()
        self.source = source
        self.table: PieceTable = piece_table(tokenizer)
        self.recase = Recaser.for_model(tokenizer, model_dir)
        self.mask_id = tokenizer.mask_token_id
        self.pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
        wrapped = tokenizer("", add_special_tokens=True)["input_ids"]
        self.prefix, self.suffix = wrapped[:1], wrapped[1:]
        limit = getattr(model.config, "max_position_embeddings", 512)
        if getattr(model.config, "model_type", "") in ("roberta", "xlm-roberta", "camembert"):
            limit -= 2  # RoBERTa positions start after the padding index
        model_limit = getattr(tokenizer, "model_max_length", limit)
        if not isinstance(model_limit, int) or model_limit > 100_000:
            model_limit = limit
        self.max_tokens = min(limit, model_limit, max_tokens or limit)
        # The output layer may be wider than the tokenizer (padded vocabularies): extra ids never allowed.
        extra = [False] * max(0, getattr(model.config, "vocab_size", 0) - len(self.table.initial))
        self._first = {s: torch.tensor(self.table.first_piece_ok(s) + extra) for s in (False, True)}
        self._next = torch.tensor(self.table.next_piece_ok() + extra)
        # The MLM head of BERT (cls) and RoBERTa (lm_head) families; others run whole.
        self._head = getattr(model, "cls", None) or getattr(model, "lm_head", None)
        # The head may run in another format than the encoder (workbench.mlm.loading.place).
        self._head_dtype = next(self._head.parameters()).dtype if self._head is not None else None
        self.device = next(model.parameters()).device

    # ---- encoding -------------------------------------------------------------
    def encode(self, parts: Sequence[str | int], focus: int = 0) -> Encoded:
        """`parts`: text strings and mask runs (an int n = n masks, one gap). `focus` is the
        gap whose masks must survive cropping to max_tokens (the slot's target)."""
        lstrip = self.table.scheme != "wordpiece"  # RoBERTa-style masks absorb the space before them
        prepared = []
        for i, p in enumerate(parts):
            if isinstance(p, str):
                nxt = parts[i + 1] if i + 1 < len(parts) else None
                prepared.append(p.rstrip() if (lstrip and isinstance(nxt, int)) else p)
        encoded = iter(self.tokenizer(prepared, add_special_tokens=False, split_special_tokens=True)["input_ids"]
                       if prepared else [])
        ids: list[int] = []
        masks, after_space, left = [], [], []
        text_so_far = ""
        for p in parts:
            if isinstance(p, str):
                ids.extend(next(encoded))
                text_so_far += p
            else:
                masks.append(tuple(range(len(ids), len(ids) + p)))
                after_space.append(text_so_far[-1:].isspace())
                left.append(text_so_far)
                ids.extend([self.mask_id] * p)
                text_so_far += "\0"  # a gap: neither space nor sentence end
        ids, masks = self._crop(ids, masks, focus)
        shift = len(self.prefix)
        return Encoded(tuple(self.prefix + ids + self.suffix), tuple(tuple(m + shift for m in g) for g in masks),
                       tuple(after_space), tuple(left))

    def _crop(self, ids: list[int], masks: list[tuple[int, ...]], focus: int):
        """Keep at most max_tokens (with start/end tokens), centred on the focus gap's masks.
        Gaps cut off lose their positions (empty tuple): they are no longer in the input."""
        room = self.max_tokens - len(self.prefix) - len(self.suffix)
        if len(ids) <= room:
            return ids, masks
        target = masks[focus]
        centre = (target[0] + target[-1]) // 2 if target else 0
        start = max(0, min(centre - room // 2, len(ids) - room))
        end = start + room
        kept = [tuple(p - start for p in g) if g and g[0] >= start and g[-1] < end else () for g in masks]
        return ids[start:end], kept

    # ---- forward ----------------------------------------------------------------
    def logits(self, rows: Sequence[Encoded], positions: Sequence[Sequence[int]]) -> list:
        """Logits (float32 on the CPU, [len(positions[r]), vocab]) at the given positions of each row.
        Encoder calls of one shape per bucket (see module docstring); order is kept."""
        out: list = [None] * len(rows)
        sequences = [row.ids for row in rows]
        with self.torch.inference_mode():
            if self._head is None:  # a model without a separable head: logits everywhere, then pick
                def whole(ids, attention):
                    return self.model(input_ids=ids, attention_mask=attention).logits

                for members, logits in self.fixed_shape_calls(sequences, whole):
                    for n, r in enumerate(members):
                        out[r] = logits[n, list(positions[r])].float().cpu()
                return out
            at_masks: dict[int, Tensor] = {}  # row -> its encoder states at the asked positions
            for members, hidden in self.fixed_shape_calls(sequences, self.encoder_states):
                for n, r in enumerate(members):
                    at_masks[r] = hidden[n, list(positions[r])]
            self._project(self._head, at_masks, out)
        return out

    def encoder_states(self, ids, attention):
        """Last-layer encoder states [rows, length, hidden] of one call."""
        return self.model.base_model(input_ids=ids, attention_mask=attention)[0]

    def fixed_shape_calls(self, sequences: Sequence[Sequence[int]],
                          forward: Callable) -> Iterator[tuple[list[int], Tensor]]:
        """`forward(ids, attention)` over the sequences in calls of one shape per length bucket:
        yields (the sequences' indices in the call, in row order; forward's output). Rows past
        the last index are padding rows: pad tokens that attend to their first position only
        (a row with nothing to attend to can turn into NaN in some attention kernels)."""
        torch = self.torch
        buckets: dict[int, list[int]] = {}
        for n, seq in enumerate(sequences):
            buckets.setdefault(bucket_length(len(seq)), []).append(n)
        for length, members in sorted(buckets.items()):
            size = rows_per_call(length, self.device.type)
            for start in range(0, len(members), size):
                chunk = members[start:start + size]
                ids = torch.full((size, length), self.pad_id, dtype=torch.long)
                attention = torch.zeros((size, length), dtype=torch.long)
                attention[:, 0] = 1
                for row, n in enumerate(chunk):
                    ids[row, :len(sequences[n])] = torch.tensor(sequences[n])
                    attention[row, :len(sequences[n])] = 1
                yield chunk, forward(ids.to(self.device), attention.to(self.device))

    def _project(self, head: Callable[[Tensor], Tensor], at_masks: dict[int, Tensor], out: list) -> None:
        """The output head (vocabulary projection) only where a mask is: most of the cost otherwise.

        The head reads a vocabulary × hidden matrix for every call, so one call per row made it
        memory-bound (5 ms a call for 30k × 384 in float32, whatever the rows). Here the states
        of every row go through it together, HEAD_ROWS at a time, the last call padded with
        zeros: every call has one shape, so a position's logits never depend on which other
        positions came with it (tests/mlm/test_masked_lm.py checks this bit for bit)."""
        torch = self.torch
        order = [r for r in range(len(out)) if r in at_masks]
        if not order:
            return
        states = torch.cat([at_masks[r] for r in order]).to(self._head_dtype)
        padded = -(-len(states) // HEAD_ROWS) * HEAD_ROWS
        states = torch.cat([states, states.new_zeros((padded - len(states), states.shape[1]))])
        logits = torch.cat([head(states[i:i + HEAD_ROWS]).float().cpu()
                            for i in range(0, padded, HEAD_ROWS)])
        start = 0
        for r in order:
            count = len(at_masks[r])
            out[r] = logits[start:start + count]
            start += count

    # ---- candidates -------------------------------------------------------------
    def top_words(self, logits_row, k: int, after_space: bool, left: str) -> list[str]:
        """The k best whole word forms for one mask, best first."""
        torch = self.torch
        allowed = self._first[after_space][: logits_row.shape[-1]]
        scores = logits_row.masked_fill(~allowed, float("-inf"))
        # A few spares: two pieces can decode (and re-case) to the same form.
        top = torch.topk(scores, min(k * 2 + 5, int(allowed.sum()))).indices.tolist()
        words = dedupe(self.recase(pieces_to_text(self.tokenizer, [i]), left) for i in top)
        return words[:k]

    def top_pieces(self, logits_row, k: int, first: bool, after_space: bool) -> list[int]:
        """Ids of the k best pieces for a mask of a multi-mask fill."""
        allowed = (self._first[after_space] if first else self._next)[: logits_row.shape[-1]]
        scores = logits_row.masked_fill(~allowed, float("-inf"))
        return self.torch.topk(scores, min(k, int(allowed.sum()))).indices.tolist()

    def text_of(self, piece_ids: Sequence[int], left: str) -> str:
        """A multi-piece fill as text, re-cased; stray joiners at its ends removed."""
        text = pieces_to_text(self.tokenizer, piece_ids).strip(" -/&")
        # A trailing full stop ends the sentence inside the span ("the world."), except after
        # an initial ("J.").
        while text.endswith((".", "'", "’")) and not _INITIAL.search(text):
            text = text[:-1].rstrip(" -/&")
        return self.recase(text, left)
