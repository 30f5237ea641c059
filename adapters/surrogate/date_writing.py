"""Writing a moved date back as the original wrote it: its order, separators, padding, names and endings.

Numeric dates keep their field order, separators, zero-padding and a year of two or four
digits; month and weekday names keep their language, full or abbreviated form, case and
period; ordinal days keep their ending (the module docstring of
workbench.adapters.surrogate.dates gives examples).
"""

from __future__ import annotations

import re

from workbench.adapters.surrogate.pieces import case_of, with_case
from workbench.text.dates import (
    MONTH_ABBREVIATIONS,
    MONTH_NAMES,
    SWEDISH_WEEKDAY_ENDINGS,
    WEEKDAY_ABBREVIATIONS,
    WEEKDAY_NAMES,
    DatePart,
    DateReading,
)

_NUMERIC_FIELDS = re.compile(r"^(\d+)(\D)(\d+)(\D)(\d+)$")


def write_date(text: str, reading: DateReading, new: dict, lang: str) -> str:
    """`text` with each field of its date (`reading`) written with its new value from `new`."""
    out, cursor = [], 0
    for part in reading.parts:
        out += [text[cursor:part.start], render_part(part, new, lang)]
        cursor = part.end
    return "".join(out) + text[cursor:]


def render_part(part: DatePart, new: dict, lang: str) -> str:
    if part.role == "numeric":
        return _numeric(part.text, new["day"], new["month"], new["year"])
    if part.role == "day":
        return _day(part.text, new["day"])
    if part.role == "month":
        return month_name(part.text, new["month"], lang)
    if part.role == "year":
        digits = part.text.rstrip(".")
        return f"{new['year']:0{len(digits)}d}" + part.text[len(digits):]
    return weekday_name(part.text, new["weekday"], lang)


def _numeric(text: str, day: int, month: int, year: int) -> str:
    match = _NUMERIC_FIELDS.match(text)
    if match is None:
        raise ValueError(f"not a numeric date: {text!r}")
    a, sep1, b, sep2, c = match.groups()
    year_first = len(a) == 4
    day_text, month_text, year_text = (c, b, a) if year_first else (a, b, c)
    # Zero-padded unless the original wrote a day or month with one digit (3.8.2003).
    width = 1 if len(day_text) == 1 or len(month_text) == 1 else 2
    # Four digits, zero-padded, for every year but a two-digit one: "0850" stays "0851", not "851".
    y = f"{year % 100:02d}" if len(year_text) == 2 else f"{year:04d}"
    d, m = f"{day:0{width}d}", f"{month:0{width}d}"
    return f"{y}{sep1}{m}{sep2}{d}" if year_first else f"{d}{sep1}{m}{sep2}{y}"


def english_ordinal(n: int) -> str:
    if 10 <= n % 100 <= 20:
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def swedish_ordinal(n: int) -> str:
    return ":a" if n % 10 in (1, 2) and n % 100 not in (11, 12) else ":e"  # 1:a, 2:a, 3:e, 11:e, 21:a


def _day(text: str, day: int) -> str:
    digits = len(text) - len(text.lstrip("0123456789"))
    number, ending = text[:digits], text[digits:]
    out = f"{day:02d}" if number.startswith("0") else str(day)
    core = ending.rstrip(".")
    if core.lower() in ("st", "nd", "rd", "th"):
        suffix = english_ordinal(day)
        core_new = suffix.upper() if core.isupper() else suffix
    elif core in (":e", ":a"):
        core_new = swedish_ordinal(day)
    else:
        core_new = core
    return out + core_new + ending[len(core):]


def _forms_of(word: str, lang: str, full: dict, short: dict) -> tuple[str, ...]:
    """The list `word` comes from: full names before abbreviations, the document's language first."""
    for table in (full, short):
        for candidate in (lang, *sorted(table)):
            if word in table.get(candidate, ()):
                return table[candidate]
    return short.get(lang, short["en"])  # "sept": an abbreviation


def month_name(text: str, month: int, lang: str) -> str:
    word = text.rstrip(".")
    name = _forms_of(word.lower(), lang, MONTH_NAMES, MONTH_ABBREVIATIONS)[month - 1]
    if word.lower() == "sept" and month == 9:
        name = "sept"
    return with_case(case_of(word), name) + text[len(word):]


def weekday_name(text: str, weekday: int, lang: str) -> str:
    word = text.rstrip(".")
    key, ending = word.lower(), ""
    if key not in {n for names in (*WEEKDAY_NAMES.values(), *WEEKDAY_ABBREVIATIONS.values()) for n in names}:
        for candidate in SWEDISH_WEEKDAY_ENDINGS:
            if key.endswith(candidate) and key[:-len(candidate)] in WEEKDAY_NAMES["sv"]:
                key, ending = key[:-len(candidate)], candidate
                break
    forms: tuple[str, ...]
    if key in ("tues", "thur", "thurs"):
        forms = WEEKDAY_ABBREVIATIONS["en"]
    elif key == "tors":
        forms = WEEKDAY_ABBREVIATIONS["sv"]
    else:
        forms = _forms_of(key, "sv" if ending else lang, WEEKDAY_NAMES, WEEKDAY_ABBREVIATIONS)
    return with_case(case_of(word), forms[weekday] + ending) + text[len(word):]
