"""The parts of 004's matching function that need no lemmatiser: dates, acronyms, name words, n-grams."""

from __future__ import annotations

import pytest

from workbench.privacy.inference_attacks.matching import (
    Phrase,
    Word,
    acronym_of,
    char_ngrams,
    is_name_word,
    match,
    parse_date,
)

STOPS = frozenset({"the", "of", "on", "in", "den", "and"})

DATES = [
    ("3 August 2003", (3, 8, 2003)),
    ("August 3rd, 2003", (3, 8, 2003)),
    ("on the 3rd of August 2003", (3, 8, 2003)),
    ("2003-08-03", (3, 8, 2003)),  # ISO: year first
    ("03/08/2003", (3, 8, 2003)),  # day first (European)
    ("3.8.2003", (3, 8, 2003)),
    ("3 Aug. 2003", (3, 8, 2003)),
    ("den 3:e augusti 2003", (3, 8, 2003)),
    ("August 2003", (None, 8, 2003)),
    ("2003", (None, None, 2003)),
    ("maj", (None, 5, None)),
    ("3", None),  # a day alone is no date
    ("45", None),
    ("the summer of 2003", None),  # another content word: not a calendar date
    ("early 1980s", None),
    ("1990 and 1995", None),  # two years: a range
    ("3 August 2003 and 5 May 2004", None),
    ("13/13/2003", None),  # no thirteenth month
]


@pytest.mark.parametrize("text,expected", DATES, ids=[d[0] for d in DATES])
def test_parse_date(text, expected):
    assert parse_date(text, STOPS) == expected


def words(*spec):
    """Words from (text, lemma[, stop]) pairs."""
    out = []
    for item in spec:
        text, lemma, stop = (*item, False)[:3]
        out.append(Word(text, lemma, text.isalpha(), stop, not any(c.isalnum() for c in text)))
    return out


def test_acronym_needs_two_title_cased_content_words():
    assert acronym_of(words(("European", "european"), ("Court", "court"), ("of", "of", True), ("Human", "human"),
                            ("Rights", "right"))) == "echr"
    assert acronym_of(words(("The", "the", True), ("Hague", "hague"))) == ""  # "The" is a stop word
    assert acronym_of(words(("Smith", "smith"),)) == ""
    assert acronym_of(words(("united", "united"), ("nations", "nation"))) == ""  # not title-cased


def test_name_words_and_ngrams():
    assert is_name_word("Turkey") and is_name_word("Wołąsiewicz")
    assert not is_name_word("result") and not is_name_word("A") and not is_name_word("PERSON")
    assert char_ngrams("turkey") == {"turk", "urke", "rkey"}
    assert char_ngrams("ank") == set()


def phrase(text="x", lemmas=(), grams=(), date_lemmas=(), date=None, acronym=""):
    return Phrase(text, frozenset(lemmas), frozenset(grams), frozenset(date_lemmas), date, acronym)


def test_rules_apply_by_kind_of_span():
    a = phrase("turkish", {"turkish"}, {"turk", "urki", "rkis", "kish"})
    b = phrase("turkey", {"turkey"}, {"turk", "urke", "rkey"})
    assert match(a, b, named_entity=True, is_date=False) == "ngram"
    assert match(a, b, named_entity=False, is_date=False) is None
    # a date span discloses only by date rules: a shared lemma is not enough
    d1 = phrase("3 august 2003", {"august"}, date_lemmas={"3", "august", "2003"}, date=(3, 8, 2003))
    d2 = phrase("august 2003", {"august"}, date_lemmas={"august", "2003"}, date=(None, 8, 2003))
    assert match(d1, d2, named_entity=False, is_date=True) is None
    assert match(d1, d2, named_entity=False, is_date=False) == "lemma"
    assert match(d1, phrase("", {"august"}), named_entity=False, is_date=False) is None  # an empty guess


def test_an_overlap_only_through_acronyms_is_reported_as_acronym():
    a = phrase("echr", {"echr"})
    b = phrase("european court of human rights", {"european", "court", "human", "right", "echr"}, acronym="echr")
    assert match(a, b, named_entity=False, is_date=False) == "acronym"
    c = phrase("court", {"court"})
    assert match(c, b, named_entity=False, is_date=False) == "lemma"
