"""Form agreement of a replacement with its original: capitalisation, token count, shape class.

String rules only (no model), read by the agreement family (workbench/metrics/agreement.py):

    capitalisation("Anna Berg") == "Title"    capitalisation("EU") == "UPPER"
    capitalisation("läkare") == "lower"       capitalisation("van Dijk") == "mixed"
    capitalisation("1975") == "none"          (no cased letter)
    token_count("Anna Berg") == 2             (white-space separated tokens)
    shape_class("K. Zieliński") == "A. Aa"    shape_class("36110/97") == "9/9"

Why these rules: users report replacements that lose the original's capitalisation, turn a
one-word name into two words, or put a word where a code stood. A word, for capitalisation, is a
run of letters, so `Anna-Karin` and `O'Brien` are Title; a one-letter upper-case word (`J.`) is
Title, not UPPER, since an initial is how a capitalised name is shortened. The shape class is
the span's character-class shape (workbench.text.shape.shape_of, what a `shape` generator sees)
with runs of one class collapsed: lengths differ between any two names, classes and separators
should not.
"""

from __future__ import annotations

import re

from workbench.text.shape import shape_of

LOWER, TITLE, UPPER, MIXED, NONE = "lower", "Title", "UPPER", "mixed", "none"
_LETTER_RUN = re.compile(r"[^\W\d_]+")


def capitalisation(text: str) -> str:
    """lower / Title / UPPER / mixed over the cased letters of the text; none without one."""
    words = [w for w in _LETTER_RUN.findall(text) if any(ch.isupper() or ch.islower() for ch in w)]
    if not words:
        return NONE
    cased = [ch for w in words for ch in w if ch.isupper() or ch.islower()]
    if all(ch.islower() for ch in cased):
        return LOWER
    if all(ch.isupper() for ch in cased) and any(len(w) > 1 for w in words):
        return UPPER
    if all(w[0].isupper() and not any(ch.isupper() for ch in w[1:]) for w in words):
        return TITLE
    return MIXED


def token_count(text: str) -> int:
    """White-space separated tokens (003's multi-word rate counts words the same way)."""
    return len(text.split())


def shape_class(text: str) -> str:
    """shape_of(text) with each run of one character collapsed to one: "Aaaa Aaaa" -> "Aa Aa"."""
    shape = shape_of(text.strip())
    return "".join(ch for n, ch in enumerate(shape) if n == 0 or ch != shape[n - 1])
