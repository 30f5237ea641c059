"""One masked LM ready for filling: tokenizer, model, piece table, recaser.

Used by fill-mask, NS3/NAd, the offline build's evaluation and the benchmark. Texts go
in as pieces (plain text and mask runs), so the mask positions are known exactly and a
literal "[MASK]" in a document cannot add a mask.

Batched forward passes give the same logits as one text at a time: every row is padded
to a fixed length bucket (a multiple of BUCKET tokens) and only rows of the same bucket
share a forward pass. A row's numbers then never depend on which other rows came with
it (measured on CPU: with padding to the batch's longest row instead, short rows drift
by ~1e-5, enough to swap near-tied candidates). The output head runs over the mask
positions of all rows together in calls of one fixed shape (HEAD_ROWS), for the same
reason. See tests/mlm/test_masked_lm.py.

The encoder may run in bfloat16 while the head stays float32 (workbench.mlm.loading.place).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from workbench.mlm.words import PieceTable, Recaser, dedupe, piece_table, pieces_to_text

BUCKET = 16  # tokens; padding waste per row < BUCKET
# Mask positions per output-head call (see MaskedLM._project). Measured here (30k × 384 head,
# float32): 6.7 ms for 1 row, 11.3 ms for 16, 14.9 ms for 32 — a one-slot call pays for the
# padding, a batch pays per call; 16 keeps both near their best.
HEAD_ROWS = 16
_INITIAL = re.compile(r"(^|\s)\w\.$")


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
        Rows are grouped by length bucket (see module docstring); order is kept."""
        torch = self.torch
        out: list = [None] * len(rows)
        buckets: dict[int, list[int]] = {}
        for r, row in enumerate(rows):
            buckets.setdefault(-(-len(row.ids) // BUCKET) * BUCKET, []).append(r)
        at_masks: dict[int, object] = {}  # row -> its encoder states at the asked positions
        with torch.inference_mode():
            for length, members in sorted(buckets.items()):
                ids = torch.full((len(members), length), self.pad_id, dtype=torch.long)
                attention = torch.zeros((len(members), length), dtype=torch.long)
                for n, r in enumerate(members):
                    ids[n, :len(rows[r].ids)] = torch.tensor(rows[r].ids)
                    attention[n, :len(rows[r].ids)] = 1
                ids, attention = ids.to(self.device), attention.to(self.device)
                if self._head is None:
                    logits = self.model(input_ids=ids, attention_mask=attention).logits
                    for n, r in enumerate(members):
                        out[r] = logits[n, list(positions[r])].float().cpu()
                    continue
                hidden = self.model.base_model(input_ids=ids, attention_mask=attention)[0]
                for n, r in enumerate(members):
                    at_masks[r] = hidden[n, list(positions[r])]
            if self._head is not None:
                self._project(at_masks, out)
        return out

    def _project(self, at_masks: dict, out: list) -> None:
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
        logits = torch.cat([self._head(states[i:i + HEAD_ROWS]).float().cpu()
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
