"""The character-class shape of a span: what a `shape` generator may see of the original.

    shape_of("Ms Eva-Lena 12/03/1999") == "Aa Aaa-Aaaa 99/99/9999"

Why this shape: a surrogate (002 §3.2) keeps a number's or a code's format without its
value, so digits must stay digits (one "9" per digit, any script's decimal digits), and
separators (space, "-", "/", ".", ":", "+" …) must stay exactly where they were; the
length in characters is kept because every character maps to exactly one. Case is kept
(A/a) so a surrogate can keep "ABC-123" upper case and a capitalised name capitalised.
Letters without case (CJK, Arabic …) and title-case letters (ǅ) count as "a": a letter,
nothing more. So do combining marks (Unicode category M: the ring of a decomposed "Å",
Indic vowel signs), which belong to a letter and would otherwise name it or its accent;
"a" keeps the length. Which letter or which digit stood there is gone. Every other character is
kept as it is, numeric symbols that are not decimal digits included ("²", "½", "Ⅻ"): they
are kept like separators, so a shape shows them (rare in the shipped corpora).

Idempotent: the shape of a shape is itself ("9", "A", "a" map to themselves), so a shape
can be passed on without changing.
"""

from __future__ import annotations

import unicodedata


def _shape_char(ch: str) -> str:
    if ch.isdecimal():  # Unicode decimal digits (Nd): "٣" and "３" are digits too
        return "9"
    if ch.isalpha():
        return "A" if ch.isupper() else "a"  # lower case and caseless letters alike
    if unicodedata.category(ch).startswith("M"):  # Mn, Mc, Me: part of the letter before it
        return "a"
    return ch


def shape_of(text: str) -> str:
    """Every decimal digit → "9", upper-case letter → "A", other letter or combining mark → "a";
    the rest kept."""
    return "".join(_shape_char(ch) for ch in text)
