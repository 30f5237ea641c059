"""A span's text in pieces: runs of letters, runs of digits, and everything else.

Surrogate rules replace letter runs and digit runs and keep everything else as it stands
(spaces, hyphens, periods, slashes, "@" of a handle), so separators, spacing and lengths of
the non-letter parts survive. A Swedish or English genitive ending ("Chasowa's", "DPP:s")
is kept as it stands too, so the word before it maps as the bare word does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

LETTERS, DIGITS, OTHER = "letters", "digits", "other"
_PIECE = re.compile(r"(?P<letters>[^\W\d_]+)|(?P<digits>\d+)|(?P<other>[\W_]+)")
_GENITIVE_MARKS = ("'", "’", ":")


@dataclass(frozen=True, slots=True)
class Piece:
    text: str
    kind: str  # LETTERS | DIGITS | OTHER


def split(text: str) -> list[Piece]:
    # lastgroup is never None here: every alternative of _PIECE is a named group.
    return [Piece(m.group(), m.lastgroup or OTHER) for m in _PIECE.finditer(text)]


def is_genitive_ending(pieces: list[Piece], i: int) -> bool:
    """An "s" right after an apostrophe or colon that ends its word: "Li's", "DPP:s"."""
    piece = pieces[i]
    if piece.kind != LETTERS or piece.text.lower() != "s" or i < 2 or pieces[i - 2].kind != LETTERS:
        return False
    before, after = pieces[i - 1].text, pieces[i + 1].text if i + 1 < len(pieces) else " "
    return before in _GENITIVE_MARKS and (after[0].isspace() or after[0] in ".,;)")


# --- letter case ----------------------------------------------------------------------

UPPER, LOWER, TITLE = "upper", "lower", "title"


def case_of(word: str) -> str:
    """How a word is written: in capitals (two letters or more), in small letters, or with a
    capital first (a single capital, "McDonald" and "iPhone"-like mixtures count as title)."""
    if len(word) > 1 and word.isupper():
        return UPPER
    if word.islower():
        return LOWER
    return TITLE


def with_case(case: str, word: str) -> str:
    if case == UPPER:
        return word.upper()
    if case == LOWER:
        return word.lower()
    return word[:1].upper() + word[1:]
