"""String overlap between a pseudonym and the original span (003 §4, Experiment 1).

Absolute overlap: the same string, ignoring case and white space. Partial overlap: the
two share at least one word, ignoring case; numerals are excluded (003 counts overlap
"excluding numerals", since "2" replacing "12 March 2002" is not a leak of the date).
Used by the leak guard (003 §5.2) and by the overlap metrics, so both agree.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"\w+", re.UNICODE)


def _words(text: str) -> set[str]:
    # A numeral is any word made only of digits (with the separators \w keeps: none).
    return {w.casefold() for w in _WORD.findall(text) if not w.isdigit()}


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


def absolute_overlap(pseudonym: str, original: str) -> bool:
    """Same string (case and spacing ignored); a purely numeric original never counts."""
    return bool(_words(original)) and _normal(pseudonym) == _normal(original)


def partial_overlap(pseudonym: str, original: str) -> bool:
    """At least one shared non-numeral word; absolute overlap implies partial overlap."""
    return bool(_words(pseudonym) & _words(original))


def leaks(candidate: str, original: str) -> bool:
    """What the leak guard refuses: any partial overlap, or the original itself (numerals
    included: the guard promises that no pseudonym equals its original span)."""
    return partial_overlap(candidate, original) or _normal(candidate) == _normal(original)
