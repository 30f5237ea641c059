"""The one text comparison of the workbench: how a replacement is compared with an original.

Text is compared as text, not as code points (issue 37). "Göteborg" typed with a precomposed ö
(NFC) and with o + U+0308 COMBINING DIAERESIS (NFD, as macOS file names and some exports
write it) are one text, so every comparison puts both sides in Unicode NFC first:

    nfc(text)                 canonical composition; every comparison starts here
    normalise(text, casefold) NFC, white space collapsed to one space and stripped, and
                              case-folded (str.casefold) where the rule is case-blind
    fold(word)                one word without case: NFC, then case-folded
    same_text(a, b)           the same text: NFC-equal, case and white space counted
    words(text)               the words of text in NFC: a run of word characters (\\w) with
                              the combining marks that follow them; letters=True: letters only
    word_spans(text)          where the words of text stand (offsets of text as given)
    contains_words(text, part) part occurs in text as whole words

Case folding comes after NFC (nfc(text).casefold()), which is what every case-blind rule did
before without the NFC, so text already in NFC compares exactly as it did. A word keeps its
combining marks: NFC leaves a mark that has no precomposed letter (n + U+0308), and splitting
a word at a mark made "m" a word of both "Ångström" and "Bäckström" in NFD, so the leak guard
refused "Teresa Bäckström" for "Björn Ångström".

Only comparisons normalise. Stored text (documents, spans, pseudonyms) stays as written:
span offsets count the file's own code points. `workbench validate` says which documents are
not in NFC (workbench.loaders.check).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_SPACE = re.compile(r"\s+")


def nfc(text: str) -> str:
    """`text` in Unicode NFC (canonical composition); the same object when it already is."""
    return text if unicodedata.is_normalized("NFC", text) else unicodedata.normalize("NFC", text)


def normalise(text: str, *, casefold: bool) -> str:
    """The form in which two texts are compared: NFC, white space collapsed to one space and
    stripped, and case-folded when the rule is case-blind (casefold=True)."""
    text = _SPACE.sub(" ", nfc(text)).strip()
    return text.casefold() if casefold else text


def fold(word: str) -> str:
    """One word compared without case: NFC, then case-folded (no white space handling)."""
    return nfc(word).casefold()


def same_text(a: str, b: str) -> bool:
    """The same text (canonically equivalent): equal in NFC; case and white space count."""
    return a == b or nfc(a) == nfc(b)


@lru_cache(maxsize=1)
def _marks() -> str:
    """A regular-expression class body of every combining mark (Mn, Mc, Me). Python's `re` has
    no \\p{M}; marks lie below U+20000 and in the variation selectors supplement."""
    ranges: list[tuple[int, int]] = []
    for code in [*range(0x300, 0x20000), *range(0xE0100, 0xE01F0)]:
        if unicodedata.category(chr(code))[0] == "M":
            if ranges and ranges[-1][1] == code - 1:
                ranges[-1] = (ranges[-1][0], code)
            else:
                ranges.append((code, code))
    return "".join(re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in ranges)


@lru_cache(maxsize=2)
def _word_pattern(letters: bool) -> re.Pattern[str]:
    first = r"[^\W\d_]" if letters else r"\w"
    return re.compile(rf"{first}(?:{first}|[{_marks()}])*")


def words(text: str, *, letters: bool = False) -> list[str]:
    """The words of `text` in NFC, in order: word characters (\\w: letters, digits, "_") with the
    combining marks after them; letters=True: letters (and their marks) only."""
    return _word_pattern(letters).findall(nfc(text))


def word_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each word of `text` as given (not normalised: offsets count its code
    points). A word keeps its combining marks, so a text in NFD has as many words as in NFC."""
    return [m.span() for m in _word_pattern(False).finditer(text)]


def _word_char(ch: str) -> bool:
    # \w as `re` reads it (str.isalnum, "_"), or a combining mark, which belongs to its word.
    return ch.isalnum() or ch == "_" or unicodedata.category(ch)[0] == "M"


def contains_words(text: str, part: str) -> bool:
    """`part` occurs in `text` and is not a piece of a longer word or number ("smith" is in
    "john smith", not in "smithson"; "97" is not in "1997"); both compared in NFC, as given
    otherwise (normalise them first for a case-blind rule)."""
    text, part = nfc(text), nfc(part)
    start = text.find(part)
    while start != -1:
        end = start + len(part)
        if (start == 0 or not _word_char(text[start - 1])) and (end == len(text) or not _word_char(text[end])):
            return True
        start = text.find(part, start + 1)
    return False
