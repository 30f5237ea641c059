"""Calendar dates written in English or Swedish, read into their fields and where each field stands.

One reader, two users: the matching function of paper 004 (workbench.privacy.inference_attacks.matching: does
a guess name the same date?) and the surrogate generator (workbench.adapters.surrogate.dates: shift
a date and write it back in the original's format). Both need the same tokens and month
names; the surrogates also need each field's position and spelling, and weekdays.

    read_date("Saturday September 24, 2011", weekdays=True)
    -> DateReading(day=24, month=9, year=2011, weekday=5, parts=(weekday, month, day, year))

Numeric dates are read day first (European usage, as in TAB and Swedish text) unless the
year comes first (ISO 8601, 2003-08-03). A lone number is a year only with four digits,
otherwise a day (1-31).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

# A year-less date ("3 August") is read in a leap year, so 29 February exists: the surrogates'
# date shifts, the interval metric and the known-pair attack read it the same way.
LEAP_YEAR = 2000

MONTH_NAMES = {
    "en": ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december"),
    "sv": ("januari", "februari", "mars", "april", "maj", "juni", "juli", "augusti", "september", "oktober",
           "november", "december"),
}
MONTH_ABBREVIATIONS = {
    "en": ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"),
    "sv": ("jan", "feb", "mar", "apr", "maj", "jun", "jul", "aug", "sep", "okt", "nov", "dec"),
}
# Every spelling above -> month number (1-12), plus "sept" (English and Swedish).
MONTHS = {name: i for names in (*MONTH_NAMES.values(), *MONTH_ABBREVIATIONS.values())
          for i, name in enumerate(names, 1)} | {"sept": 9}

WEEKDAY_NAMES = {
    "en": ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"),
    "sv": ("måndag", "tisdag", "onsdag", "torsdag", "fredag", "lördag", "söndag"),
}
WEEKDAY_ABBREVIATIONS = {
    "en": ("mon", "tue", "wed", "thu", "fri", "sat", "sun"),
    "sv": ("mån", "tis", "ons", "tor", "fre", "lör", "sön"),
}
# Swedish weekdays take endings: "onsdagen" (the Wednesday), "i söndags" (last Sunday).
SWEDISH_WEEKDAY_ENDINGS = ("ens", "en", "s")
_WEEKDAY_EXTRA = {"tues": 1, "thur": 3, "thurs": 3, "tors": 3}

_ORDINAL = re.compile(r"^(\d{1,2})(?:st|nd|rd|th|:e|:a)?\.?$")
_NUMERIC = re.compile(r"^(\d{1,4})([-/.])(\d{1,2})([-/.])(\d{1,4})$")
# A numeric date; a number with an optional ordinal ending; a word (its trailing period
# kept: "Aug."). The ordinal endings are matched in any case, so "3RD" reads as in "3rd".
_TOKEN = re.compile(r"\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}|\d+(?i::[ae]|st|nd|rd|th)?\.?|[^\W\d_]+\.?")
# A decade, not a year: a year ending in 0 (or its last two digits) with a plural "s" glued to
# it ("1990s", "1990's", "'90s") or the Swedish "-tal" ("1990-talet", "90-talen"), and the first
# of two Swedish decades that share their ending ("1980- och 1990-talen"). Group 1: the digits.
DECADE = re.compile(r"(?<!\d)(\d{3}0|\d0)(?=['’]?[sS](?![^\W\d_])|-tal|-\s+(?:och|eller|till)\s+\d+-tal)")


def cardinal(lemma: str) -> str:
    """An ordinal written with digits as its number ("3rd" -> "3"); anything else unchanged."""
    m = _ORDINAL.match(lemma)
    return str(int(m.group(1))) if m else lemma


def weekday_of(word: str) -> int | None:
    """0 (Monday) to 6 (Sunday) for an English or Swedish weekday name, abbreviation or
    Swedish ending form ("onsdagen", "söndags"); None for anything else."""
    name = word.lower().rstrip(".")
    for names in (*WEEKDAY_NAMES.values(), *WEEKDAY_ABBREVIATIONS.values()):
        if name in names:
            return names.index(name)
    if name in _WEEKDAY_EXTRA:
        return _WEEKDAY_EXTRA[name]
    for ending in SWEDISH_WEEKDAY_ENDINGS:
        stem = name[:-len(ending)]
        if name.endswith(ending) and stem in WEEKDAY_NAMES["sv"]:
            return WEEKDAY_NAMES["sv"].index(stem)
    return None


@dataclass(frozen=True, slots=True)
class DatePart:
    """One field of a date as written: where it stands in the text and what it is."""
    start: int
    end: int
    role: str  # "numeric" (a whole d/m/y date) | "day" | "month" | "year" | "weekday"
    text: str


@dataclass(frozen=True, slots=True)
class DateReading:
    day: int | None
    month: int | None
    year: int | None
    weekday: int | None  # 0 = Monday; only when read with weekdays=True
    parts: tuple[DatePart, ...]  # in reading order; the text between them is left as it is

    @property
    def fields(self) -> tuple:
        return self.day, self.month, self.year


def read_date(text: str, allowed_words: frozenset[str] = frozenset(), *, weekdays: bool = False,
              any_words: bool = False) -> DateReading | None:
    """The calendar date `text` holds and where its fields stand, or None when the text is not
    just a date: another word that is not in `allowed_words` (lower-cased: "the", "den"), two
    dates or years (a range), or no month, no year (and, with `weekdays`, no weekday).

    With weekdays=False a weekday name counts as any other word (the matching function's reading).
    With any_words=True every other word may stand around the date ("the end of September
    1994"); a number that is no date field still makes the text something else ("30 years"),
    and so does a decade ("the 1990s", "1990-talet": the "s" or "-talet" is no word around a
    year). The matching function reads with any_words=False, where "s" and "talet" are words
    like any other."""
    if any_words and DECADE.search(text):
        return None
    day = month = year = weekday = None
    parts: list[DatePart] = []
    for m in _TOKEN.finditer(text):
        token = m.group().lower()
        numeric = _NUMERIC.match(token)
        name = token.rstrip(".")
        ordinal = _ORDINAL.match(token)
        if numeric:
            a, b, c = int(numeric.group(1)), int(numeric.group(3)), int(numeric.group(5))
            year_first = len(numeric.group(1)) == 4
            d, mo, y = (c, b, a) if year_first else (a, b, c)
            # A year of fewer than four digits is of 1931-2030 ("3/8/03"); one written with four
            # is that year, "0099" the year 99 (not 1999).
            if y < 100 and len(numeric.group(1 if year_first else 5)) < 4:
                y += 1900 if y > 30 else 2000
            if not (1 <= mo <= 12 and 1 <= d <= 31) or (day, month, year) != (None, None, None):
                return None
            day, month, year, role = d, mo, y, "numeric"
        elif name in MONTHS:
            if month is not None:
                return None
            month, role = MONTHS[name], "month"
        elif name.isdigit() and len(name) == 4:
            if year is not None:
                return None
            year, role = int(name), "year"
        elif ordinal and 1 <= int(ordinal.group(1)) <= 31:
            if day is not None:
                return None
            day, role = int(ordinal.group(1)), "day"
        elif weekdays and weekday_of(name) is not None:
            if weekday is not None:
                return None
            weekday, role = weekday_of(name), "weekday"
        elif name not in allowed_words and not (any_words and not any(c.isdigit() for c in name)):
            return None  # a word that is not part of a calendar date
        else:
            continue
        parts.append(DatePart(m.start(), m.end(), role, m.group()))
    if month is None and year is None and weekday is None:
        return None  # a bare day number ("3") is not a date
    return DateReading(day, month, year, weekday, tuple(parts))


def parse_date(text: str, stop_words: frozenset[str] = frozenset()) -> tuple | None:
    """(day, month, year) of a calendar date written with words or numbers, None for a field not
    given; None when the text is not just a date: another content word ("the summer of 2003",
    "early 1980s"), two dates or years (a range), or no month and no year.

    Stop words around the date are allowed ("on the 3rd of August 2003", "den 3:e augusti")."""
    reading = read_date(text.lower(), stop_words)
    return reading.fields if reading else None


def calendar_day(text: str) -> tuple[date, bool] | None:
    """The calendar day `text` names and whether it names its year; None when it names no day
    and month (a year, a month, a range, not a date) or a day its month does not have."""
    reading = read_date(text, weekdays=True, any_words=True)
    if reading is None or reading.day is None or reading.month is None:
        return None
    try:
        return date(reading.year if reading.year is not None else LEAP_YEAR, reading.month, reading.day), \
            reading.year is not None
    except ValueError:
        return None
