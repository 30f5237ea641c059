"""Dates: one offset per document keeps every interval; each date keeps its format (EN and SV)."""

from __future__ import annotations

import itertools
import re
from datetime import date, timedelta

import pytest

from tests.surrogates.surrogate_helpers import bilingual_corpus, maker
from workbench.adapters.surrogate.date_offsets import document_offset, lone_month_shift, month_shift, year_shift
from workbench.adapters.surrogate.dates import redraw_date_pieces, shift_date
from workbench.adapters.surrogate.spans import NOTE_DATE_PIECES, NOTE_WORDS_DRAWN
from workbench.text.dates import MONTH_ABBREVIATIONS, MONTH_NAMES, WEEKDAY_NAMES, read_date

EN_MONTH = "(?:" + "|".join(m.title() for m in MONTH_NAMES["en"]) + ")"
SV_MONTH = "(?:" + "|".join(MONTH_NAMES["sv"]) + ")"
EN_ABBR = "(?:" + "|".join(m.title() for m in MONTH_ABBREVIATIONS["en"]) + ")"
SV_ABBR = "(?:" + "|".join(MONTH_ABBREVIATIONS["sv"]) + ")"
EN_DAY = "(?:" + "|".join(d.title() for d in WEEKDAY_NAMES["en"]) + ")"
SV_DAY = "(?:" + "|".join(d.title() for d in WEEKDAY_NAMES["sv"]) + ")"
D = r"[1-9]\d?"
ORD = r"(?:1st|2nd|3rd|[4-9]th|1[0-9]th|2[04-9]th|21st|22nd|23rd|30th|31st)"
SV_ORD = r"(?:(?:[12]|2[12]|31):a|(?:[3-9]|1\d|2[03-9]|30):e)"  # 1:a, 2:a, 3:e … 11:e, 12:e … 21:a, 22:a, 31:a

# Golden rows: an original, its language, the pattern every surrogate of it must have.
GOLDEN = [
    ("2003-08-03", "en", r"\d{4}-\d\d-\d\d"),  # ISO: year first, zero-padded
    ("03/08/2003", "en", r"\d\d/\d\d/\d{4}"),  # day first, zero-padded
    ("3.8.2003", "sv", r"\d{1,2}\.\d{1,2}\.\d{4}"),  # one digit where the original had one
    ("3/8/03", "en", r"\d{1,2}/\d{1,2}/\d\d"),  # a two-digit year stays two digits
    ("3/8/3", "en", r"\d{1,2}/\d{1,2}/\d{4}"),  # one digit (read as 2003) is written with four
    ("3 August 2003", "en", rf"{D} {EN_MONTH} \d{{4}}"),
    ("August 3rd, 2003", "en", rf"{EN_MONTH} {ORD}, \d{{4}}"),  # the ordinal ending follows the new day
    ("3 aug. 2003", "sv", rf"{D} {SV_ABBR}\. \d{{4}}"),  # abbreviated, small letters, the period kept
    ("3 Aug. 2003", "en", rf"{D} {EN_ABBR}\. \d{{4}}"),
    ("den 3 augusti 2003", "sv", rf"den {D} {SV_MONTH} \d{{4}}"),
    ("den 3:e augusti 2003", "sv", rf"den {D}:[ae] {SV_MONTH} \d{{4}}"),
    ("Onsdagen den 5 oktober", "sv", rf"{SV_DAY}en den {D} {SV_MONTH}"),  # Swedish weekday with its ending
    ("Saturday September 24, 2011", "en", rf"{EN_DAY} {EN_MONTH} {D}, \d{{4}}"),
    ("September 2011", "en", rf"{EN_MONTH} \d{{4}}"),
    ("juli 2008", "sv", rf"{SV_MONTH} \d{{4}}"),
    ("September", "en", EN_MONTH),
    ("2011", "en", r"\d{4}"),
    ("År 2006", "sv", r"År \d{4}"),
    ("SEPT. 21ST", "en", r"[A-Z]{3,4}\. \d{1,2}(?:ST|ND|RD|TH)"),  # capitals stay capitals
    ("the end of September 1994", "en", rf"the end of {EN_MONTH} \d{{4}}"),  # words around a date stay
    ("13 and 14 January 1998", "en", rf"{D} (?:{EN_MONTH} )?and {D} {EN_MONTH} \d{{4}}"),  # a range
    ("between 1944 and 1990", "en", r"between \d{4} and \d{4}"),
    # A decade stays a round decade: the "s" or "-talet" glued to it is no word around a year.
    ("the 1990s", "en", r"the \d{3}0s"),
    ("mid-1990s", "en", r"mid-\d{3}0s"),
    ("the 1980s and 1990s", "en", r"the \d{3}0s and \d{3}0s"),
    ("1990's", "en", r"\d{3}0's"),
    ("the '90s", "en", r"the '\d0s"),
    ("1990-talet", "sv", r"\d{3}0-talet"),
    ("1980- och 1990-talen", "sv", r"\d{3}0- och \d{3}0-talen"),
    ("1900-talet", "sv", r"(?:18|20)00-talet"),  # a century moves by centuries
]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("text,lang,pattern", GOLDEN, ids=[g[0] for g in GOLDEN])
def test_a_shifted_date_keeps_its_format(text, lang, pattern, seed):
    made = maker(seed=seed).from_original(text, "DATETIME", lang, f"doc-{seed}")
    assert re.fullmatch(pattern, made.text), made.text
    assert made.text != text and made.note == ""


def _full_date(text: str) -> date:
    reading = read_date(text, weekdays=True, any_words=True)
    return date(reading.year, reading.month, reading.day)


@pytest.mark.parametrize("seed", range(6))
def test_every_full_date_of_a_document_moves_by_the_same_offset_and_weekdays_follow(seed):
    m = maker(seed=seed)
    originals = ["3 August 2003", "2003-08-10", "17/08/2003", "August 24th, 2003", "Saturday 30 August 2003",
                 "5.9.2003", "den 3:e september 2003", "Onsdagen den 5 november 2003", "10 aug. 2003"]
    moved = {t: m.from_original(t, "DATETIME", "sv" if "den" in t or "aug." in t else "en", "doc").text
             for t in originals}
    offsets = {(_full_date(moved[t]) - _full_date(t)).days for t in originals}
    assert offsets == {m.offset("doc")}
    for t in ("Saturday 30 August 2003", "Onsdagen den 5 november 2003"):
        reading = read_date(moved[t], weekdays=True, any_words=True)
        assert reading.weekday == _full_date(moved[t]).weekday()  # the weekday names the new date


@pytest.mark.parametrize("seed", range(4))
def test_intervals_between_all_dates_of_a_document_are_kept_in_both_languages(seed):
    corpus = bilingual_corpus()
    m = maker(seed=seed)
    for doc in corpus.documents:
        pairs = []
        for span in doc.spans:
            if m.table.rule(span.label).kind == "date":
                reading = read_date(span.text, weekdays=True, any_words=True)
                if reading.day is not None and reading.year is not None:
                    pairs.append((_full_date(span.text),
                                  _full_date(m.from_original(span.text, span.label, doc.lang, doc.doc_id).text)))
        assert len(pairs) >= 2
        for (a, a2), (b, b2) in itertools.combinations(pairs, 2):
            assert (b2 - a2).days == (b - a).days


@pytest.mark.parametrize("offset", [1, -1, 10, -200, 45, 300, -360, 362, -363, 400])
def test_each_precision_moves_by_its_rule(offset):
    assert shift_date("2011", "en", offset) == str(2011 + year_shift(offset))
    assert year_shift(offset) != 0 and (year_shift(offset) > 0) == (offset > 0)
    months = month_shift(offset)
    assert months != 0 and abs(months * 30.44 - offset) < 31
    total = 2011 * 12 + 8 + months  # September 2011 is month index 8 of 2011
    assert shift_date("September 2011", "en", offset) == f"{MONTH_NAMES['en'][total % 12].title()} {total // 12}"
    assert shift_date("September", "en", offset) != "September"  # a lone month always moves
    assert lone_month_shift(offset) % 12 != 0
    moved = date(2000, 9, 3) + timedelta(days=offset)  # a date with no year moves in a leap year
    assert shift_date("3 September", "en", offset) == f"{moved.day} {MONTH_NAMES['en'][moved.month - 1].title()}"


@pytest.mark.parametrize("text,lang,offset,expected", [
    ("30 and 31 January 1999", "en", 1, "31 January and 1 February 1999"),  # "31 and 1 February" would misdate
    ("30 och 31 januari 1999", "sv", 1, "31 januari och 1 februari 1999"),
    ("13 and 14 January 1998", "en", 10, "23 and 24 January 1998"),
    ("29 March and 10 April 1990", "en", 10, "8 April and 20 April 1990"),  # the first end takes the year
    ("från 3 till 5 maj", "sv", 40, "från 12 till 14 juni"),
    ("1944-1990", "en", -10, "1943-1989"),
    # Across a year the first end is written with its year ("31 December and 1 January 1999"
    # would read as 31 December 1999).
    ("30 and 31 December 1998", "en", 1, "31 December 1998 and 1 January 1999"),
    ("30 och 31 december 1998", "sv", 1, "31 december 1998 och 1 januari 1999"),
    ("1 and 3 January 1999", "en", -2, "30 December 1998 and 1 January 1999"),
    ("January 1 and January 3, 1999", "en", -2, "December 30, 1998 and January 1, 1999"),  # its separator
    # A first end later in the year than the second is in the year before.
    ("30 December and 2 January 1999", "en", -3, "27 December and 30 December 1998"),
    ("30 December and 2 January 1999", "en", 1, "31 December 1998 and 3 January 1999"),
    ("December 30 and January 2, 1999", "en", 2, "January 1 and January 4, 1999"),  # a month first, not a bare day
    ("Saturday 3 and Sunday 4 January 1998", "en", -3, "Wednesday 31 December 1997 and Thursday 1 January 1998"),
])
def test_a_range_moves_both_ends_and_the_first_borrows_what_it_leaves_out(text, lang, offset, expected):
    assert shift_date(text, lang, offset) == expected


@pytest.mark.parametrize("text,lang,offset,expected", [
    ("the 1990s", "en", 10, "the 2000s"),  # one year up: one decade up
    ("the 1990s", "en", -10, "the 1980s"),
    ("mid-1990s", "en", 400, "mid-2000s"),  # two years up: still one decade
    ("1990's", "en", 5000, "2010's"),  # 14 years up: two decades
    ("the 1980s and 1990s", "en", -300, "the 1970s and 1980s"),  # both move alike: the interval stays
    ("the '90s", "en", 10, "the '00s"),
    ("the 1900s", "en", 10, "the 2000s"),  # "1900s" names a century as often: whole centuries
    ("1990-talet", "sv", 10, "2000-talet"),
    ("1980- och 1990-talen", "sv", -10, "1970- och 1980-talen"),
    ("1900-talet", "sv", -10, "1800-talet"),
])
def test_a_decade_moves_by_whole_decades_in_the_offsets_direction(text, lang, offset, expected):
    assert shift_date(text, lang, offset) == expected
    assert read_date(text, weekdays=True, any_words=True) is None  # never read as a year


def test_the_document_offset_is_seeded_bounded_and_changes_every_date():
    offsets = [document_offset(seed, f"doc-{n}", 400) for seed in range(5) for n in range(60)]
    assert all(1 <= abs(o) <= 400 and o % 7 for o in offsets)
    assert not {365, 366, -365, -366} & set(offsets)  # a date without its year would come back
    assert len(set(offsets)) > 100  # documents draw independently
    assert document_offset(3, "doc", 400) == document_offset(3, "doc", 400)
    assert all(1 <= abs(document_offset(s, "d", 3)) <= 3 for s in range(20))  # a user's small range holds
    with pytest.raises(ValueError, match="within 1..36525 days"):
        document_offset(3, "doc", 0)
    with pytest.raises(ValueError, match="within 1..36525 days"):  # beyond a century: refused, not overflowed
        document_offset(3, "doc", 10**7)


def test_a_lone_month_after_a_shift_of_whole_years_moves_one_more_month():
    assert month_shift(360) == 12 and lone_month_shift(360) == 13
    assert shift_date("May", "en", 360) == "June"
    assert month_shift(-360) == -12 and shift_date("maj", "sv", -360) == "april"


@pytest.mark.parametrize("text,lang,pattern", [
    ("kl 7 den 6 juni", "sv", rf"kl [1-9] den [1-9] {SV_MONTH}"),  # two numbers that could be the day
    ("30 years", "en", r"[1-9]\d years"),  # a duration: digits redrawn in place
    ("two months", "en", r"(?!two )[a-z]+ months"),
    ("fourth day", "en", r"(?!fourth )[a-z]+ day"),
    ("the 23rd", "en", rf"the {ORD}"),  # an ordinal day alone: a day with the ending of its new day
    ("den 3:e", "sv", rf"den {SV_ORD}"),
])
def test_a_date_the_reader_cannot_take_whole_is_redrawn_piece_by_piece_and_says_so(text, lang, pattern):
    made = maker().from_original(text, "DATETIME", lang, "doc")
    assert made.note == NOTE_DATE_PIECES
    assert re.fullmatch(pattern, made.text) and made.text != text, made.text


def test_piece_by_piece_moves_month_names_and_years_by_their_own_rules():
    # 40 days: two months (rounded away from zero) for a lone month name, one year for a year.
    out = redraw_date_pieces("juni 1990, kl 7 och tre dagar", "sv", 40, lambda run: "X", lambda word: "fem")
    assert out == "augusti 1991, kl X och fem dagar"
    # A decade among pieces moves as a decade (one year up: one decade up).
    out = redraw_date_pieces("juni på 1990-talet, kl 7", "sv", 40, lambda run: "X", str)
    assert out == "augusti på 2000-talet, kl X"


@pytest.mark.parametrize("text,lang,offset,expected", [
    ("the 3rd", "en", 10, "the 13th"),  # "the 5rd" before: the old ending was kept
    ("the 3RD", "en", 19, "the 22ND"),
    ("23rd", "en", -111, "5th"),  # within a month of 31 days
    ("the 3rd", "en", 31, "the 4th"),  # a whole 31 days would give the day back
    ("den 3:e", "sv", 18, "den 21:a"),
    ("den 1:a", "sv", 1, "den 2:a"),
    ("the 45th", "en", 10, "the 87th"),  # no day: its digits drawn, the ending still follows
])
def test_an_ordinal_day_alone_moves_and_takes_the_ending_of_its_new_day(text, lang, offset, expected):
    assert redraw_date_pieces(text, lang, offset, lambda run: "87", str) == expected


@pytest.mark.parametrize("text,lang,expected", [
    ("i jul", "sv", None),  # Christmas, not July
    ("till jul", "sv", None),
    ("jul 2003", "sv", "sep 2003"),  # with a year or a day, or its period, it is July
    ("24 jul", "sv", "2 sep"),
    ("jul.", "sv", "sep."),
    ("i jul", "en", "i sep"),  # English has no Christmas "jul"
])
def test_swedish_jul_alone_is_christmas_and_with_a_number_july(text, lang, expected):
    assert shift_date(text, lang, 40) == expected


def test_christmas_stays_christmas_piece_by_piece_and_alone_draws_words():
    draw = lambda run: "X"  # noqa: E731
    assert redraw_date_pieces("till jul, kl 7", "sv", 40, draw, str) == "till jul, kl X"
    assert redraw_date_pieces("kl 7 den 6 jul", "sv", 40, draw, str) == "kl X den X sep"
    made = maker().from_original("i jul", "date", "sv", "doc")
    assert made.note == NOTE_WORDS_DRAWN and "jul" not in made.text.split()


def test_a_date_span_with_nothing_datelike_draws_its_words_and_says_so():
    made = maker().from_original("summer", "DATETIME", "en", "doc")
    assert made.note == NOTE_WORDS_DRAWN and made.text.islower() and made.text != "summer"
