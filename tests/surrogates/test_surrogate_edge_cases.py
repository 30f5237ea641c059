"""Surrogates of text at the edges (issue 24 item 19): decomposed Unicode, years before 1000,
dates no calendar has."""

from __future__ import annotations

import unicodedata

import pytest

from tests.surrogates.surrogate_helpers import maker
from workbench.adapters.surrogate.date_offsets import document_offset
from workbench.adapters.surrogate.dates import impossible_date, shift_date
from workbench.adapters.surrogate.spans import NOTE_IMPOSSIBLE_DATE
from workbench.text.dates import read_date, weekday_of

NFD = lambda text: unicodedata.normalize("NFD", text)  # noqa: E731
NFC = lambda text: unicodedata.normalize("NFC", text)  # noqa: E731


@pytest.mark.parametrize("text, label, lang", [
    ("Åsa Öberg", "personal_name", "sv"),  # was "B̊nylander Ükrantz": letters drawn under the marks
    ("Lördagen den 5 oktober 2002", "date", "sv"),  # was left unshifted: "lördag" not read
    ("René Müller", "PERSON", "en"),
])
def test_a_decomposed_original_gets_the_surrogate_of_its_composed_form_written_decomposed(text, label, lang):
    decomposed = maker().from_original(NFD(text), label, lang, "doc-1")
    composed = maker().from_original(text, label, lang, "doc-1")
    assert not decomposed.failed and decomposed.note == composed.note
    assert decomposed.text == NFD(composed.text)  # the same surrogate, in the original's form
    assert unicodedata.is_normalized("NFD", decomposed.text)
    for word in NFC(decomposed.text).split():  # every mark on a letter that takes it: no stray combining mark
        assert not unicodedata.combining(word[0]), decomposed.text


def test_a_decomposed_weekday_moves_with_the_document():
    offset = document_offset(13, "doc-1", 365)
    moved = NFC(maker().from_original(NFD("Lördagen den 5 oktober 2002"), "date", "sv", "doc-1").text)
    assert moved == shift_date("Lördagen den 5 oktober 2002", "sv", offset)
    reading = read_date(moved, weekdays=True, any_words=True)
    assert reading.weekday == (weekday_of("lördag") + offset) % 7


@pytest.mark.parametrize("text, year", [("3/8/0099", 99), ("0099-08-03", 99), ("03/08/0850", 850),
                                        ("3/8/99", 1999), ("3/8/03", 2003), ("3 August 0099", 99)])
def test_a_year_written_with_four_digits_is_that_year(text, year):
    assert read_date(text).year == year  # "0099" is the year 99, not 1999; "99" still is 1999


@pytest.mark.parametrize("text, expected", [
    ("3/8/0099", "13/8/0099"),  # was "13/8/1999"
    ("0850-08-03", "0850-08-13"),  # was "850-08-13"
    ("03/08/0850", "13/08/0850"),  # was "13/08/850"
    ("3 August 0099", "13 August 0099"),
    ("0999", "1000"),
    ("3/8/03", "13/8/03"),  # two digits stay two
])
def test_years_before_1000_keep_their_digits_and_their_century(text, expected):
    assert shift_date(text, "en", 10) == expected


@pytest.mark.parametrize("text, lang", [("31 February 2020", "en"), ("30 februari", "sv"),
                                        ("29 February 2019", "en"), ("31/04/2003", "en"),
                                        ("30 and 31 February 2020", "en")])
def test_an_impossible_date_is_refused_not_shifted_into_another(text, lang):
    made = maker().from_original(text, "DATETIME" if lang == "en" else "date", lang, "doc-1")
    assert made.failed and made.text == ""  # was "52 March 2021": a made-up date passing for a real one
    assert made.note.startswith(f"{NOTE_IMPOSSIBLE_DATE}: ") and "is not a calendar date" in made.note


@pytest.mark.parametrize("text", ["29 February 2020", "29 February", "30 April 2003", "the 31st", "31 March"])
def test_possible_dates_are_not_called_impossible(text):
    assert impossible_date(text, "en") is None
