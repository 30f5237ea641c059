"""What is not a word: the UPOS tags of punctuation and symbols, and forms made only of them.

In text/ (below the taggers, which keep their cache in the store) because the baselines'
word inventory (pud_vocabulary.py) and the UPOS filter both need it, and neither needs a tagger.
"""

from __future__ import annotations

import unicodedata

# Tags that are not words: the span rule looks past them (workbench.upos.base), and the
# baselines never draw a form with them (workbench/text/pud_vocabulary.py).
NON_WORD_UPOS = frozenset({"PUNCT", "SYM"})


def is_punctuation_only(text: str) -> bool:
    """True for text of punctuation (Unicode P*) and symbols (S*) only, white space aside, and
    not blank: `,` `”` `(…)` `%` `§`. Such a form is never a pseudonym for a personal span
    (the baselines' vocabulary, the UPOS filter's candidates)."""
    chars = [ch for ch in text if not ch.isspace()]
    return bool(chars) and all(unicodedata.category(ch)[0] in "PS" for ch in chars)
