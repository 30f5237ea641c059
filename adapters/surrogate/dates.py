"""Date surrogates: one random shift per document, written back in each date's own format.

Every date of a document moves by the same offset (a whole number of days, drawn once per
document from the run seed and the document id), so the intervals between its dates are
kept (002 §3.2 keeps a document coherent; users of every pseudonymiser ask for it). Each
field is written back as the original wrote it: numeric dates keep their order, separators,
zero-padding and a year of two or four digits (2003-08-03, 03/08/2003, 3.8.03; a year of one
or three digits, which the reader takes as 2003 for "3/8/3", is written with four: one digit
would misdate any year past 2009); month and weekday names keep
their language, full or abbreviated form, case and period ("3 aug. 2003", "den 3 augusti
2003", "Onsdagen den 5 oktober"); ordinal days keep their ending ("August 3rd", "3:e").

How each precision moves (offset D days, never 0 and never a multiple of 7, see
document_offset):
    day, month, year    the calendar date + D days
    day, month          the same, in a leap year (2000), so 29 February exists
    month, year         + D days in whole months, rounded away from zero (at least one)
    month alone         as month and year, modulo 12; a shift of whole years would give the
                        same month back, so it moves one month further in D's direction
    year alone          + D days in whole years, rounded away from zero (at least one)
    decade              the year shift rounded away from zero to whole decades ("the 1990s",
                        "1990-talet"); a year ending in 00 ("the 1900s", "1900-talet") names a
                        century at least as often, so it moves by whole centuries: either way
                        it stays a round decade
    weekday             + D days modulo 7 (exact for every precision: a date D days later
                        falls D mod 7 weekdays later)
Dates of one precision keep their intervals exactly; between precisions (a year-only date
and a full date) the interval is kept to within that unit.

Words around a date stay as they are ("the end of September 1994" -> "the end of March 1994").
Swedish "jul" with no number next to it is Christmas ("i jul"), not July, and stays (only here:
the matching function's parse_date reads "jul" as July, as it always has).
A range moves both its ends ("13 and 14 January 1998", "between 1944 and 1990"); its first end
shares what it leaves out with the second, and is written with the month or year it gets when
the shift parts them ("30 and 31 December 1998" +1 -> "31 December 1998 and 1 January 1999").

A text the reader cannot take whole (a duration "two months", "kl 7 den 6 juni") is redrawn
piece by piece: month and weekday names move as above, a decade as a decade, a four-digit
number from 1000 to 2999 as a year, an ordinal day ("the 23rd", "den 3:e") by the offset
within a month of 31 days, with the ending of its new day; other digits and number words are
drawn (shape surrogate).
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from datetime import date, timedelta

from workbench.adapters.surrogate.date_offsets import (
    LEAP_YEAR,
    lone_day,
    lone_month_shift,
    month_shift,
    shifted_decade,
    year_shift,
)
from workbench.adapters.surrogate.date_writing import (
    english_ordinal,
    month_name,
    render_part,
    swedish_ordinal,
    weekday_name,
    write_date,
)
from workbench.adapters.surrogate.numbers import is_number_word
from workbench.adapters.surrogate.pieces import DIGITS, LETTERS, case_of, split, with_case
from workbench.text.dates import DECADE, MONTHS, DatePart, DateReading, read_date, weekday_of


def _shift_decades(text: str, offset: int) -> str | None:
    """`text` with every decade moved, when decades are its only date fields ("the 1980s and
    1990s", "mid-1990s", "1980- och 1990-talen"); None when it holds anything else to move."""
    out, cursor = [], 0
    for m in DECADE.finditer(text):
        new = shifted_decade(m.group(1), offset)
        if new is None:
            return None
        out += [text[cursor:m.start(1)], new]
        cursor = m.end(1)
    rest = DECADE.sub("", text)
    if any(c.isdigit() for c in rest) or any(
            p.kind == LETTERS and (p.text.lower() in MONTHS or weekday_of(p.text) is not None) for p in split(rest)):
        return None
    return "".join(out) + text[cursor:]


def shift_date(text: str, lang: str, offset: int) -> str | None:
    """`text` with its date, or the two ends of its date range, or its decades, moved by
    `offset` days in the same format; None when the text is none of these, or a date falls
    outside years 1-9999."""
    if DECADE.search(text):  # the reader would take "1990" of "the 1990s" for a year
        return _shift_decades(text, offset)
    # Words around the date stay as they are ("the end of September 1994", "den 5 oktober").
    reading = _read(text, lang)
    if reading is not None:
        new = _shifted(reading.fields, reading.weekday, offset)
        return write_date(text, reading, new, lang) if new else None
    return _shift_range(text, lang, offset)


def impossible_date(text: str, lang: str) -> str | None:
    """What is wrong when `text`, or an end of the range it is, names a day its month does not
    have ("31 February 2020", "30 February"; without a year, February has 29 days); None when
    it names none. Such a date is refused, not shifted: no calendar date is its shift, and a
    made-up one ("52 March 2021") would pass for a real one."""
    pieces = [text] + [piece for m in _CONNECTOR.finditer(text) for piece in (text[:m.start()], text[m.end():])]
    for piece in pieces:
        reading = _read(piece, lang)
        if reading is None or reading.day is None or reading.month is None:
            continue
        year = reading.year if reading.year is not None and 1 <= reading.year <= 9999 else LEAP_YEAR
        if reading.day > calendar.monthrange(year, reading.month)[1]:
            return (f"{piece.strip()!r} is not a calendar date (month {reading.month} has no day {reading.day}"
                    f"{'' if reading.year is None else f' in {reading.year}'})")
    return None


def _read(text: str, lang: str) -> DateReading | None:
    """The date in `text`, words around it allowed; None for Swedish "jul" alone (Christmas)."""
    reading = read_date(text, weekdays=True, any_words=True)
    if reading is not None and lang == "sv" and reading.day is None and reading.year is None \
            and any(p.role == "month" and p.text.lower() == "jul" for p in reading.parts):
        return None
    return reading


def _is_christmas(pieces: list, i: int, lang: str) -> bool:
    """Swedish "jul" is Christmas ("i jul", "till jul"), not July, unless a number stands next
    to it ("6 jul", "jul 2003") or it ends with the abbreviation's period ("jul.")."""
    if lang != "sv" or pieces[i].text.lower() != "jul":
        return False
    near = [pieces[j] for j in (i - 2, i - 1, i + 1, i + 2) if 0 <= j < len(pieces)]
    return not any(p.kind == DIGITS for p in near) and not (i + 1 < len(pieces) and pieces[i + 1].text.startswith("."))


# A range's connector: "13 and 14 January", "1944-1990", "från 3 till 5 maj".
_CONNECTOR = re.compile(r"\s+(?:and|to|until|or|och|till|eller)\s+|\s*[-–—]\s*")
_BARE_DAY = re.compile(r"^(\D*?)((?P<day>\d{1,2})(?:st|nd|rd|th|:e|:a)?\.?)(\s*)$", re.IGNORECASE)  # "från 3", "16"


def _shift_range(text: str, lang: str, offset: int) -> str | None:
    """Both ends of a range moved by `offset`. The first end may leave out what the second
    gives: "13 and 14 January 1998" (month and year), "29 March and 10 April 1990" (year);
    its shifted day is then read in the second end's month and year, and written with its
    month when the shift puts it in another month than the second end, and with its year
    when in another year ("31 December 1998 and 1 January 1999")."""
    for m in _CONNECTOR.finditer(text):
        left, right = text[:m.start()], text[m.end():]
        second = _read(right, lang)
        if second is None:
            continue
        second_new = _shifted(second.fields, second.weekday, offset)
        if not second_new:
            continue
        # Read whole first: "December 30" is a month and a day, not a bare day after a word.
        first = _read(left, lang)
        if first is None:
            bare = _BARE_DAY.match(left)
            if not bare:
                continue
            first = DateReading(int(bare.group("day")), None, None, None,
                                (DatePart(bare.start(2), bare.end(2), "day", bare.group(2)),))
        d, mo, y = first.fields
        # What the first end leaves out, it shares with the second end; a first end later in the
        # year than the second is in the year before ("30 December and 2 January 1999").
        year = y if y is not None else second.year
        if y is None and year is not None and mo is not None and second.month is not None \
                and (mo, d or 0) > (second.month, second.day or 0):
            year -= 1
        inherited = (d, mo if mo is not None else second.month, year)
        first_new = _shifted(inherited, first.weekday, offset)
        if not first_new:
            continue
        left_out = write_date(left, first, first_new, lang)
        tail = left[len(left.rstrip()):]
        if mo is None and first_new["month"] != second_new["month"]:
            month_part = next((p for p in second.parts if p.role == "month"), None)
            if month_part is not None:  # "31 and 1 April" would misdate the first end
                left_out = left_out.rstrip() + " " + month_name(month_part.text.rstrip("."), first_new["month"], lang)
                left_out += tail
        if y is None and first_new["year"] != second_new["year"]:
            # "31 December and 1 January 1999" reads as 31 December 1999: write the first end's year,
            # after what stands before the second end's year (" ", ", ").
            year_part = next((p for p in second.parts if p.role == "year"), None)
            if year_part is not None:
                before = max((p.end for p in second.parts if p.end <= year_part.start), default=year_part.start)
                gap = right[before:year_part.start] if before < year_part.start else " "
                left_out = left_out.rstrip() + gap + render_part(year_part, first_new, lang) + tail
        return left_out + m.group() + write_date(right, second, second_new, lang)
    return None


_ENGLISH_ENDINGS = ("st", "nd", "rd", "th")


def _is_ordinal_ending(pieces: list, i: int) -> bool:
    """Whether pieces[i] ends an ordinal written with digits: "rd" of "23rd", "e" of "3:e"."""
    if not 0 <= i < len(pieces) or pieces[i].kind != LETTERS:
        return False
    ending = pieces[i].text.lower()
    if ending in _ENGLISH_ENDINGS:
        return i >= 1 and pieces[i - 1].kind == DIGITS
    return ending in ("e", "a") and i >= 2 and pieces[i - 1].text == ":" and pieces[i - 2].kind == DIGITS


def _shifted(fields: tuple, weekday: int | None, offset: int) -> dict | None:
    """The fields of a date moved by `offset` days at its precision (see the module docstring);
    None for a day with no month, 31 February, or a year outside 1-9999."""
    day, month, year = fields
    try:
        if day is not None and month is not None:
            moved = date(year if year is not None else LEAP_YEAR, month, day) + timedelta(days=offset)
            day, month, year = moved.day, moved.month, moved.year if year is not None else None
        elif day is not None:
            return None  # a day and a year, or a day and a weekday, with no month: not a calendar date
        elif month is not None and year is not None:
            total = year * 12 + month - 1 + month_shift(offset)
            month, year = total % 12 + 1, total // 12
        elif month is not None:
            month = (month - 1 + lone_month_shift(offset)) % 12 + 1
        elif year is not None:
            year += year_shift(offset)
    except (ValueError, OverflowError):
        return None
    if year is not None and not 1 <= year <= 9999:
        return None
    return {"day": day, "month": month, "year": year,
            "weekday": (weekday + offset) % 7 if weekday is not None else None}


def redraw_date_pieces(text: str, lang: str, offset: int, draw_digits: Callable[[str], str],
                       draw_number_word: Callable[[str], str]) -> str:
    """A date the reader cannot take whole, redrawn piece by piece (see the module docstring)."""
    decades = {m.start(1): m.group(1) for m in DECADE.finditer(text)}
    pieces = split(text)
    out: list[str] = []
    cursor = 0
    for i, piece in enumerate(pieces):
        word, start = piece.text, cursor
        cursor += len(word)
        if piece.kind == DIGITS and decades.get(start) == word and (decade := shifted_decade(word, offset)):
            out.append(decade)
        elif piece.kind == DIGITS and any(_is_ordinal_ending(pieces, j) for j in (i + 1, i + 2)):
            day = int(word)
            width = 2 if word.startswith("0") else 1  # "03rd" stays padded
            out.append(f"{lone_day(day, offset):0{width}d}" if 1 <= day <= 31 else draw_digits(word))
        elif _is_ordinal_ending(pieces, i):  # the ending of the number just written
            number = int(out[-1] if pieces[i - 1].kind == DIGITS else out[-2])
            ending = english_ordinal(number) if word.lower() in _ENGLISH_ENDINGS else swedish_ordinal(number)[1:]
            out.append(ending.upper() if word.isupper() else ending)
        elif piece.kind == DIGITS:
            if len(word) == 4 and 1000 <= int(word) <= 2999:
                out.append(str(int(word) + year_shift(offset)))
            else:
                out.append(draw_digits(word))
        elif piece.kind == LETTERS and word.lower() in MONTHS and not _is_christmas(pieces, i, lang):
            month = (MONTHS[word.lower()] - 1 + lone_month_shift(offset)) % 12 + 1
            out.append(month_name(word, month, lang))
        elif piece.kind == LETTERS and (weekday := weekday_of(word)) is not None:
            out.append(weekday_name(word, (weekday + offset) % 7, lang))
        elif piece.kind == LETTERS and is_number_word(word, lang):
            out.append(with_case(case_of(word), draw_number_word(word)))
        else:
            out.append(word)
    return "".join(out)
