"""Tokens that keep identifiers whole: codes, numbers and dates as one token each, words lower-cased.

A word tokeniser (bm25s's `\\w\\w+`, most others) cuts the identifiers that tie a text to its
individual into pieces that every text shares: an ECHR application number `36110/97` becomes
`36110` and `97` (a year suffix that hundreds of judgments carry), `12 March 1997` becomes three
tokens common on their own. Kept whole, each is a rare token, and a retrieval attacker weighs it
as rare (workbench.privacy.reid_attacks.retrieval_ids). The rule, in order (the first that matches wins):

    code    digits and letters joined by / . - : with a digit in it   36110/97, A/123/2001, 5-2-1
            ("no. 12345/67": `no` is a word, `12345/67` the code)
    date    ISO (1997-03-12), day month year (12 March 1997, 12th of March, 1997), month day
            year (March 12, 1997), numeric day first (12.03.1997, 12/3/1997): all -> 1997-03-12;
            month year (March 1997) -> 1997-03
    number  digits with , or . inside (1,000 and 12.5 whole)
    word    two or more letters, lower-cased (bm25s's rule, so plain words match as before)

A numeric date is read day first (European usage, as workbench.text.dates), and only when its
fields are a calendar day; otherwise (36110/97, 1/2/3) it is a code, kept as written. Month
names are English and Swedish (workbench.text.dates.MONTHS). No stop words are removed here:
that is the caller's choice of list.
"""

from __future__ import annotations

import re
from datetime import date

from workbench.text.dates import MONTHS

_MONTH = "|".join(sorted((re.escape(m) for m in MONTHS), key=len, reverse=True))
_DAY = r"(?P<{}>[0-3]?\d)(?:st|nd|rd|th|:e|:a)?"
_YEAR = r"(?P<{}>\d{{4}})(?!\d)"
_MONTH_WORD = r"(?P<{}>" + _MONTH + r")\.?"
_PATTERN = re.compile(
    "|".join((
        r"(?P<iso>\d{4}-\d{1,2}-\d{1,2})(?![/.\-:]?[^\W_])",
        # 12 March 1997, 12th of March 1997, 12 March, 1997
        _DAY.format("d1") + r"\s+(?:of\s+)?" + _MONTH_WORD.format("m1") + r",?\s+" + _YEAR.format("y1"),
        # March 12, 1997
        _MONTH_WORD.format("m2") + r"\s+" + _DAY.format("d2") + r",?\s+" + _YEAR.format("y2"),
        # March 1997
        _MONTH_WORD.format("m3") + r",?\s+" + _YEAR.format("y3"),
        # a code: pieces of letters and digits joined by / . - :, at least one digit in it
        r"(?P<code>[^\W_]*\d[^\W_]*(?:[/.\-:][^\W_]+)+|[^\W_]+(?:[/.\-:][^\W_]+)*[/.\-:][^\W_]*\d[^\W_]*)",
        r"(?P<number>\d+(?:[.,]\d+)*)",
        r"(?P<word>[^\W\d_]{2,})",
    )),
    re.IGNORECASE,
)
_PIECES = re.compile(r"\d+|[^\W\d_]{2,}")
_NUMERIC_DATE = re.compile(r"(\d{1,2})[./](\d{1,2})[./](\d{4})")


def _iso(year: int, month: int, day: int | None = None) -> str | None:
    try:
        date(year, month, day or 1)
    except ValueError:
        return None
    return f"{year:04d}-{month:02d}" + (f"-{day:02d}" if day else "")


def identifier_tokens(text: str) -> list[str]:
    """The tokens of `text` by the rule above, in order: codes, dates, numbers and words."""
    tokens = []
    for m in _PATTERN.finditer(text):
        kind = m.lastgroup
        groups = m.groupdict()
        token: str | None = None
        if groups["iso"]:
            y, mo, d = (int(p) for p in groups["iso"].split("-"))
            token = _iso(y, mo, d)
        elif groups["y1"]:
            token = _iso(int(groups["y1"]), MONTHS[groups["m1"].lower()], int(groups["d1"]))
        elif groups["y2"]:
            token = _iso(int(groups["y2"]), MONTHS[groups["m2"].lower()], int(groups["d2"]))
        elif groups["y3"]:
            token = _iso(int(groups["y3"]), MONTHS[groups["m3"].lower()])
        elif kind == "code":
            numeric = _NUMERIC_DATE.fullmatch(m.group())
            token = _iso(int(numeric.group(3)), int(numeric.group(2)), int(numeric.group(1))) if numeric else None
        if token is not None:
            tokens.append(token)
        elif kind in ("code", "number", "word"):
            tokens.append(m.group().lower())
        else:  # a date that is no calendar day (31 February 1997): its numbers and words, as they stand
            tokens.extend(t.lower() for t in _PIECES.findall(m.group()))
    return tokens
