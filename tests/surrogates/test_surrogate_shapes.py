"""Numbers and codes (002 §3.2): digits stay digits, letters keep their case, separators and lengths stay."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.surrogates.surrogate_helpers import maker
from workbench.adapters.surrogate.shapes import redraw_digits, redraw_shape
from workbench.text.shape import shape_of

CODES = [
    "43185/98",  # an ECHR application number
    "11/15W.2.E (no. 2)",  # letters inside a code keep their case, the brackets and spaces stay
    "007-12",
    "QX-88213-b",
    "+46 (0)8 123 45",
    "6",
]


@pytest.mark.parametrize("code", CODES)
def test_a_code_seen_by_its_shape_keeps_digits_letters_separators_and_length(code):
    drawn = maker().from_shape(shape_of(code), "doc", 0, k=5)
    assert len(drawn) == len(set(drawn)) >= 2  # distinct draws, so the leak guard can skip one
    for text in drawn:
        assert shape_of(text) == shape_of(code)  # each digit a digit, each letter a letter of its case
        assert len(text) == len(code)
        # The first digit of a run of two or more is never 0: a number keeps its magnitude.
        assert not re.search(r"(?<!\d)0\d", text)


def test_shape_draws_are_seeded_by_run_document_and_span():
    shape = shape_of("43185/98")
    first = maker(seed=1).from_shape(shape, "doc", 3, k=3)
    assert maker(seed=1).from_shape(shape, "doc", 3, k=3) == first  # a resumed run draws the same
    assert maker(seed=2).from_shape(shape, "doc", 3, k=3) != first
    assert maker(seed=1).from_shape(shape, "doc", 4, k=3) != first  # per span: the shape alone says nothing of
    assert maker(seed=1).from_shape(shape, "other", 3, k=3) != first  # which code it was


def test_a_shape_with_nothing_to_redraw_gives_no_candidate():
    assert maker().from_shape("--/--", "doc", 0, k=3) == ()


@pytest.mark.parametrize("text,lang,expected", [
    ("GBP 1,000", "en", r"GBP [1-9],0\d\d"),  # the unit stays; "000" keeps its leading zero
    ("1,000 kronor", "sv", r"[1-9],0\d\d kronor"),
    ("152.25 sq. m", "en", r"[1-9]\d\d\.[1-9]\d sq\. m"),
    ("three rooms", "en", r"(?!three )[a-z]+ rooms"),  # a number word from the same list
    ("två barn", "sv", r"(?!två )[a-zåäö]+ barn"),
    ("DKK 275,000", "en", r"DKK [1-9]\d\d,0\d\d"),
])
def test_quantities_redraw_digits_and_number_words_and_keep_units(text, lang, expected):
    made = maker().from_original(text, "QUANTITY", lang, "doc")
    assert re.fullmatch(expected, made.text), made.text
    assert made.text != text


@given(st.from_regex(r"\d{1,8}", fullmatch=True), st.integers(0, 2**32))
def test_redrawn_digits_keep_length_and_leading_class_and_differ(run, seed):
    drawn = redraw_digits(run, random.Random(seed))
    assert drawn.isdigit() and len(drawn) == len(run) and drawn != run
    if len(run) > 1:
        assert (drawn[0] == "0") == (run[0] == "0")  # zero-padding kept, magnitude kept
    else:
        assert drawn != "0"  # a lone digit becomes 1-9: "0" could not change otherwise
    if run != "1":
        assert drawn != "1"  # "4 years" never becomes "1 years"


@given(st.text(alphabet="9Aa-/. ()", max_size=20), st.integers(0, 2**32))
def test_a_drawn_shape_has_the_shape_it_was_drawn_from(shape, seed):
    assert shape_of(redraw_shape(shape, random.Random(seed))) == shape
