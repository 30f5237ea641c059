"""The PUD inventory shared by the two baselines of 003 §4, with per-slot seeded sampling.

Only words: a form PUD tags PUNCT or SYM, or one made only of punctuation and symbols
(`,` `”` `%`, whatever its tag), is never drawn for a personal span (issue 24). 003 §4
says "word form" and is silent on punctuation. Left out: 23 of English PUD's 5,731 forms
and 15 of Swedish PUD's 6,403 (`&` tagged CCONJ and Swedish `%` tagged NOUN among them).
"""

from __future__ import annotations

import random
from collections import defaultdict
from pathlib import Path

from workbench.loaders.conllu import load_vocabulary
from workbench.loaders.shipped import vocabulary_path
from workbench.text.punctuation import NON_WORD_UPOS, is_punctuation_only
from workbench.text.slots import Slot

# What the baselines draw from, recorded in their signatures (signature_config): change it
# whenever the forms kept change, so a run id never stands for two different outputs.
# "words": PUD forms less punctuation and symbols (issue 24); runs before it recorded none.
VOCABULARY = "words"


def is_word(form: str, upos: str) -> bool:
    return upos not in NON_WORD_UPOS and not is_punctuation_only(form)


class PudInventory:
    """Distinct word forms per language, overall and by gold UPOS, in a stable order."""

    def __init__(self, paths: dict[str, Path] | None = None) -> None:
        self._paths = paths
        self._forms: dict[str, list[str]] = {}
        self._by_upos: dict[str, dict[str, list[str]]] = {}

    def _load(self, lang: str) -> None:
        if lang in self._forms:
            return
        path = (self._paths or {}).get(lang) or vocabulary_path(lang)
        entries = load_vocabulary(path)
        # dicts as ordered sets: each form once, in first-seen order
        forms: dict[str, None] = {}
        by_upos: defaultdict[str, dict[str, None]] = defaultdict(dict)
        for e in (e for e in entries if is_word(e.form, e.upos)):
            forms.setdefault(e.form, None)
            by_upos[e.upos].setdefault(e.form, None)
        self._forms[lang] = sorted(forms)
        self._by_upos[lang] = {u: sorted(f) for u, f in by_upos.items()}

    def forms(self, lang: str, upos: str | None = None) -> list[str]:
        self._load(lang)
        if upos is None:
            return self._forms[lang]
        return self._by_upos[lang].get(upos, [])


def slot_rng(seed: int, slot: Slot) -> random.Random:
    """One generator per slot, so a resumed or re-batched run draws exactly the same forms."""
    return random.Random(f"{seed}|{slot.doc_id}|{slot.span_index}")


def sample(rng: random.Random, pool: list[str], k: int) -> tuple[str, ...]:
    return tuple(rng.sample(pool, min(k, len(pool))))
