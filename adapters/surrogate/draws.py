"""Seeded draws: every random choice of a surrogate comes from a generator keyed on what it is for.

A key names the run seed, the document and the thing drawn (a word, a span, the date
offset), so a draw never depends on which slots came before it: a resumed, re-batched or
re-ordered run draws exactly the same surrogates, and a word drawn twice in one document
gets the same surrogate both times (the per-document mapping of 002 §3.2).
"""

from __future__ import annotations

import json
import random

MAX_ATTEMPTS = 20  # redraws before a rule gives up making a surrogate differ from its original


def rng_for(*key: object) -> random.Random:
    """A generator seeded by `key`. The key is written as JSON, so ("a|b", "c") and ("a", "b|c")
    differ; a str seed goes through SHA-512 in `random`, so it is the same on every run and
    machine (hash() of a str is not: PYTHONHASHSEED)."""
    return random.Random(json.dumps([str(k) for k in key], ensure_ascii=False))


def random_letter(rng: random.Random, upper: bool) -> str:
    return chr(rng.randrange(26) + (65 if upper else 97))
