"""A tokenizer's characters-per-piece rate, for NAd's mask count (000 §2).

NAd gives a span one mask per sub-word of the original. The generator may not see the
original text, only its length in characters (Gap.n_chars), so the count is estimated
as n_chars / rate, where the rate is measured on UD PUD text of the language with the
model's own tokenizer, over word sequences shaped like PII spans (one to four words,
capitalised first), since names split into more pieces per character than running text.
"""

from __future__ import annotations

import random
from functools import cache

from workbench.mlm.data import pud_path


@cache
def _span_like_samples(lang: str, n: int = 2000, seed: int = 13) -> tuple[str, ...]:
    """Runs of 1-4 PUD tokens starting at a capitalised word, not at a sentence start."""
    from workbench.loaders.conllu import read_conllu_tokens
    rng = random.Random(seed)
    samples = []
    for sentence in read_conllu_tokens(pud_path(lang)):
        forms = [f for f, _ in sentence]
        starts = [i for i in range(1, len(forms)) if forms[i][:1].isupper()]
        for i in starts:
            samples.append(" ".join(forms[i:i + rng.randint(1, 4)]))
    rng.shuffle(samples)
    return tuple(samples[:n])


def chars_per_piece(tokenizer, lang: str) -> float:
    """Mean characters per sub-word piece of the tokenizer on span-like PUD text (> 0)."""
    samples = _span_like_samples(lang)
    pieces = sum(len(ids) for ids in tokenizer([" " + s for s in samples], add_special_tokens=False)["input_ids"])
    chars = sum(len(s) for s in samples)
    return max(1.0, chars / max(1, pieces))


def true_piece_count(tokenizer, text: str) -> int:
    """The exact count NAd would use if it could see the original (for measuring the estimate only)."""
    return len(tokenizer(" " + text, add_special_tokens=False)["input_ids"])
