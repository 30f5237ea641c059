"""How far a document's dates move: its offset in days, and that offset in each coarser unit.

The rules per precision (a month alone, a year alone, a decade, an ordinal day) are the
module docstring of workbench.adapters.surrogate.dates, which applies them.
"""

from __future__ import annotations

import math
from datetime import date, timedelta

from workbench.adapters.surrogate.draws import rng_for
from workbench.text.dates import LEAP_YEAR

DAYS_PER_MONTH = 365.2425 / 12
DAYS_PER_YEAR = 365.2425
DEFAULT_MAX_SHIFT_DAYS = 365
# The largest allowed: a century. Python's dates end at year 9999 (a shift of millions of days
# overflows them), and a date moved by more than a century tells a reader nothing of the original.
MAX_SHIFT_DAYS_LIMIT = 36525

# How many offsets a run draws (SurrogateConfig.date_shift): "document", the default and 002's
# design, one per document, so every interval between its dates is kept, and one known date
# reveals them all (the known-pair attack, docs/privacy.md); "each", one per date text of a
# document, so a known date reveals no other, at the cost of the intervals (docs/surrogates.md).
DATE_SHIFTS = ("document", "each")


def document_offset(seed: int, doc_id: str, max_days: int) -> int:
    """The document's shift in days, from [-max_days, max_days]. Never 0 (a date would stay
    itself), never a multiple of 7 (every weekday name would stay itself), and never a shift
    that brings some day of the year back to the same day and month (365, 366, 730 … days:
    a date written without its year would stay itself)."""
    check_max_shift_days(max_days)
    return _draw_offset(rng_for("date-offset", seed, doc_id), max_days)


def date_text_offset(seed: int, doc_id: str, date_text: str, max_days: int) -> int:
    """The shift of one date of a document (date_shift="each"), drawn as document_offset is.
    Keyed on the date's text, case and white space ignored, not on its place: a date written
    twice in a document reads the same twice, and the draw never depends on slot order."""
    check_max_shift_days(max_days)
    key = " ".join(date_text.casefold().split())
    return _draw_offset(rng_for("date-offset-each", seed, doc_id, key), max_days)


def _draw_offset(rng, max_days: int) -> int:
    for _ in range(10_000):
        offset = rng.randint(-max_days, max_days)
        if offset % 7 and not _returns_to_same_day(offset):
            return offset
    raise ValueError(f"no date shift within {max_days} days changes every date")


def check_max_shift_days(max_days: int) -> None:
    if not 1 <= max_days <= MAX_SHIFT_DAYS_LIMIT:
        raise ValueError(f"the largest date shift must be within 1..{MAX_SHIFT_DAYS_LIMIT} days, not {max_days}")


def _returns_to_same_day(offset: int) -> bool:
    if abs(offset) < 360:
        return False
    start = date(LEAP_YEAR, 1, 1)
    return any(((d := start + timedelta(days=n)) + timedelta(days=offset)).timetuple()[1:3] == d.timetuple()[1:3]
               for n in range(366))


def _away_from_zero(days: int, unit: float) -> int:
    return int(math.copysign(math.ceil(abs(days) / unit), days))


def month_shift(offset: int) -> int:
    return _away_from_zero(offset, DAYS_PER_MONTH)


def year_shift(offset: int) -> int:
    return _away_from_zero(offset, DAYS_PER_YEAR)


def lone_month_shift(offset: int) -> int:
    months = month_shift(offset)
    return months + (1 if offset > 0 else -1) if months % 12 == 0 else months


def shifted_decade(digits: str, offset: int) -> str | None:
    """A decade's digits ("1990", "90" of "'90s") moved by the decade rule (module docstring);
    None when the year would leave 1-9999."""
    years = year_shift(offset)
    unit = 100 if len(digits) == 4 and digits.endswith("00") else 10
    step = int(math.copysign(unit * math.ceil(abs(years) / unit), years))
    if len(digits) == 2:  # "'90s" + 10 years -> "'00s"
        return f"{(int(digits) + step) % 100:02d}"
    new = int(digits) + step
    return str(new) if 1 <= new <= 9999 else None


def lone_day(day: int, offset: int) -> int:
    """An ordinal day with no month ("the 23rd", "den 3:e"): + offset days within a month of 31
    days, as the calendar would move it give or take the month's length; never the day itself."""
    new = (day - 1 + offset) % 31 + 1
    return new if new != day else day % 31 + 1
