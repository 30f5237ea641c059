"""Ranking whole words and phrases at one mask: the inference side of EMAT.

Top-k runs over the whole-word tokens and the phrases together (000 §2). Pieces that
cannot start a word, punctuation and special tokens are removed before the top-k (the
same rule as fill-mask: workbench.mlm.words), so k candidates are always usable. Ties
are broken by vocabulary index, so the ranking is a pure function of the scores.
Lower-cased fills of an uncased model are re-cased as fill-mask does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch

from workbench.adapters.mtc.encode import encode_all, hidden_at
from workbench.adapters.mtc.head import ExtendedHead
from workbench.mlm.masked_lm import HEAD_ROWS
from workbench.mlm.words import pieces_to_text


@dataclass(frozen=True, slots=True)
class Ranked:
    text: str
    index: int  # in tokens + phrases: < n_tokens a token, else a phrase
    is_phrase: bool
    score: float


def allowed_mask(mlm, head: ExtendedHead, after_space: bool) -> torch.Tensor:
    """[V + P] True where a candidate may stand alone at a mask."""
    keep = list(mlm.table.first_piece_ok(after_space))[:head.n_tokens]
    keep += [False] * (head.n_tokens - len(keep))
    return torch.tensor(keep + [True] * head.n_phrases)


class EmatScorer:
    def __init__(self, mlm, head: ExtendedHead, phrase_texts: Sequence[str], *, batch_size: int = 32) -> None:
        if len(phrase_texts) != head.n_phrases:
            raise ValueError(f"{len(phrase_texts)} phrase texts for {head.n_phrases} phrase rows")
        self.mlm = mlm
        self.head = head
        self.phrase_texts = list(phrase_texts)
        self.batch_size = batch_size
        self._allowed = {s: allowed_mask(mlm, head, s) for s in (False, True)}
        self._token_text: dict[int, str] = {}

    @property
    def n_tokens(self) -> int:
        return self.head.n_tokens

    def raw_text(self, index: int) -> str:
        if index >= self.n_tokens:
            return self.phrase_texts[index - self.n_tokens]
        if index not in self._token_text:
            self._token_text[index] = pieces_to_text(self.mlm.tokenizer, [index])
        return self._token_text[index]

    def rank(self, items: Sequence[tuple[list[str | int], int]], k: int) -> list[list[Ranked]]:
        """The k best distinct candidates at each item's target mask, best first.
        items: (MaskedLM parts, index of the target gap)."""
        result = []
        for start in range(0, len(items), self.batch_size):  # batch_size windows at a time: memory
            chunk = items[start:start + self.batch_size]
            rows = encode_all(self.mlm, chunk)
            scores = self._scores(hidden_at(self.mlm, rows))
            for (enc, _), (_, focus), row in zip(rows, chunk, scores):
                row = row.masked_fill(~self._allowed[enc.after_space[focus]], float("-inf"))
                result.append(self._top(row, k, enc.left[focus]))
        return result

    def _scores(self, hidden: torch.Tensor) -> torch.Tensor:
        """[n, V + P] head scores of n encoder states, HEAD_ROWS states per call, the last call
        padded with zeros. A matrix product's kernel (and so its last bits) can depend on how
        many rows it gets; with one shape for every call a slot's scores never depend on the
        batch it came in. Calls of one row each did the same but read the whole vocabulary ×
        hidden matrix per slot (memory-bound: ~7 ms a row here)."""
        device = self.head.phrase_weight.device
        padded = -(-len(hidden) // HEAD_ROWS) * HEAD_ROWS
        states = torch.cat([hidden, hidden.new_zeros((padded - len(hidden), hidden.shape[1]))]).to(device)
        with torch.inference_mode():
            return torch.cat([self.head(states[i:i + HEAD_ROWS]).cpu()
                              for i in range(0, padded, HEAD_ROWS)])[:len(hidden)]

    def _top(self, row: torch.Tensor, k: int, left: str) -> list[Ranked]:
        # A few spares beyond k: two entries can give one text. topk, then ties among the
        # chosen broken by vocabulary index, so the order is a pure function of the scores.
        width = min(row.shape[0], 2 * k + 8)
        values, order = torch.topk(row, width)
        ranked_pairs = sorted(zip(values.tolist(), order.tolist()), key=lambda vi: (-vi[0], vi[1]))
        ranked, seen = [], set()
        for value, index in ranked_pairs:
            if value == float("-inf"):
                break
            text = self.mlm.recase(self.raw_text(index), left)
            if not text or text in seen:
                continue
            seen.add(text)
            ranked.append(Ranked(text, index, index >= self.n_tokens, value))
            if len(ranked) == k:
                break
        return ranked
