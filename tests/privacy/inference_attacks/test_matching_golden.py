"""004's matching function (§3.2, §5.2), rule by rule, positive and negative, with the real lemmatisers.

Each row: language, span label, original, guess, the corpus's frequent lemmas, and the rule that
must disclose the original (None: the guess must not disclose it). The comment names what the
row guards.
"""

from __future__ import annotations

import pytest

from tests.privacy.inference_helpers import matcher

GOLDEN = [
    # exact: the guess is the original (case and spacing ignored); what discloses a span without content words
    ("en", "CODE", "43185/98", "43185/98", (), "exact"),
    ("en", "CODE", "43185/98", "43186/98", (), None),  # digits are not lemmas: a near-miss code discloses nothing
    ("en", "QUANTITY", "three", "Three", (), "exact"),
    ("en", "QUANTITY", "three", "two", (), None),
    # lemma overlap: base forms, one shared content lemma suffices (004: exact or partial overlap)
    ("en", "MISC", "dogs", "a dog", (), "lemma"),
    ("en", "DEM", "the applicant's brothers", "his brother", (), "lemma"),
    ("en", "MISC", "went swimming", "a swim", (), "lemma"),
    ("en", "MISC", "children", "the child", (), "lemma"),
    ("en", "MISC", "children", "a parent", (), None),
    # stop words and non-alphabetic tokens never overlap
    ("en", "MISC", "the house of the rising sun", "the car of the man", (), None),
    ("en", "MISC", "Room 101", "Floor 101", (), None),
    # the corpus's most frequent lemmas are left out of both sides
    ("en", "ORG", "Court of Appeal", "the Supreme Court", ("court",), None),
    ("en", "ORG", "Court of Appeal", "the Supreme Court", (), "lemma"),
    ("en", "ORG", "Court of Appeal", "an appeal", ("court",), "lemma"),
    # acronyms: title-cased non-stop words' initials join the lemma set, on either side
    ("en", "ORG", "European Court of Human Rights", "ECHR", (), "acronym"),
    ("en", "ORG", "ECHR", "the European Court of Human Rights", (), "acronym"),
    ("en", "ORG", "European Court of Human Rights", "the ECtHR", ("court", "human", "right", "european"), None),
    ("en", "PERSON", "Smith", "Stockholm", (), None),  # one word is no acronym: "S" would match anything
    # character 4-grams of name words, for named entities only (004 §5.2: Turkey - Turkish)
    ("en", "DEM", "Turkish", "Turkey", (), "ngram"),
    ("en", "LOC", "Turkey", "the Turkish Republic", (), "ngram"),
    ("en", "MISC", "Turkish", "Turkey", (), None),  # MISC is not a named-entity label
    ("en", "DEM", "consultant psychiatrist", "result", (), None),  # shares "sult", but nothing here is a name
    ("en", "PERSON", "Mr Wołąsiewicz", "Wołąsiewiczowa", (), "ngram"),
    ("en", "PERSON", "Mary Hazel Lowe", "John Price", (), None),
    ("en", "PERSON", "Mr B. Emmerson", "PERSON", (), None),  # a label in capitals is no name ("rson")
    ("en", "LOC", "Istanbul", "Pakistan", (), "ngram"),  # "stan": 004's 4-gram rule is loose
    # titles, honorifics and function words never disclose (issue 24 item 2): not by lemma, n-gram or acronym
    ("en", "PERSON", "Mr Galip Yalman", "Mr John Smith", (), None),
    ("en", "PERSON", "Mr. Galip Yalman", "Mr. John Smith", (), None),
    ("en", "PERSON", "Judge Galip Yalman", "Judge John Smith", (), None),  # "judg" is no name 4-gram either
    ("en", "PERSON", "Professor Jane Smith", "Professor Mary Brown", (), None),
    ("en", "PERSON", "Mr Jones", "Mary Jackson", (), None),  # "Mr Jones" is no "MJ": a title gives no initial
    ("en", "PERSON", "Lord Justice Sedley", "Lord Justice Williams", (), None),  # TAB's judges
    ("en", "PERSON", "Dean De La Cruz", "Erin De La Morris", (), None),  # name particles are function words too
    ("en", "PERSON", "Mr Galip Yalman", "Yalman", (), "lemma"),  # the name itself still discloses
    ("en", "PERSON", "Dr Galip Yalman", "Mrs Yalman", (), "lemma"),
    ("en", "LOC", "Kingdom of Norway", "Republic of Turkey", (), None),
    # dates: the same calendar date at the same precision, or the very same lemmas; nothing partial
    ("en", "DATETIME", "3 August 2003", "August 3rd, 2003", (), "date"),
    ("en", "DATETIME", "3 August 2003", "2003-08-03", (), "date"),
    ("en", "DATETIME", "3 August 2003", "03/08/2003", (), "date"),
    ("en", "DATETIME", "3 August 2003", "August 2003", (), None),  # a generalisation reuses part of the date
    ("en", "DATETIME", "3 August 2003", "4 August 2003", (), None),
    ("en", "DATETIME", "3 August 2003", "3 August 2004", (), None),
    ("en", "DATETIME", "3 August 2003", "3 September 2003", (), None),
    ("en", "DATETIME", "August 2003", "3 August 2003", (), None),  # more precise than the original: 004 says no
    ("en", "DATETIME", "1998", "1998", (), "exact"),
    ("en", "DATETIME", "1998", "in 1998", (), "date"),
    ("en", "DATETIME", "1998", "1999", (), None),
    ("en", "DATETIME", "the summer of 2003", "summer 2003", (), "date"),  # not a calendar date: equal lemma sets
    ("en", "DATETIME", "the summer of 2003", "2003", (), None),
    ("en", "DATETIME", "3 May 1998", "3 1998", (), None),  # "may" is a stop word, but months are kept
    ("en", "DATETIME", "1 November 1998", "November", ("november",), None),  # no lemma overlap for dates
    # Swedish: the same rules over the Swedish lemmatiser (trained lemmas checked against spaCy's lexicon)
    ("sv", "other", "läkaren", "en läkare", (), "lemma"),
    ("sv", "other", "hundarna", "hunden", (), "lemma"),
    ("sv", "other", "hundarna", "katten", (), None),
    ("sv", "institution", "Stockholms universitet", "Stockholm", (), "lemma"),
    ("sv", "institution", "Stockholms universitet", "Uppsala", (), None),
    ("sv", "geographic", "Karlstad", "Karlskrona", (), "ngram"),  # 4-gram "karl": 004's rule is this loose
    ("sv", "other", "Karlstad", "Karlskrona", (), None),
    ("sv", "date", "3 augusti 2003", "den 3:e augusti 2003", (), "date"),
    ("sv", "date", "3 augusti 2003", "augusti 2003", (), None),
    ("sv", "institution", "Europeiska Unionen", "EU", (), "acronym"),
    ("sv", "personal_name", "herr Andersson", "herr Berg", (), None),  # Swedish titles: herr, fru, doktor …
    ("sv", "personal_name", "fru Karin Ström", "fru Karin Berg", (), "lemma"),
    ("sv", "personal_name", "doktor Andersson", "doktor Berg", (), None),
    ("sv", "personal_name", "fröken Andersson", "fröken Berg", (), None),
    ("sv", "personal_name", "professor Lena Ek", "professor Anna Berg", (), None),
]


@pytest.mark.parametrize("lang,label,original,guess,frequent,rule", GOLDEN,
                         ids=[f"{r[0]}-{r[1]}-{r[2]}-{r[3]}" for r in GOLDEN])
def test_matching_golden(lang, label, original, guess, frequent, rule):
    assert matcher(lang, frequent).discloses(original, label, guess) == rule


def test_first_disclosing_guess_is_reported():
    m = matcher("en")
    hit = m.first_hit("Ankara", "LOC", ["Istanbul", "Izmir", "Ankara", "ankara"])
    assert (hit.index, hit.rule) == (2, "exact")
    assert m.first_hit("Ankara", "LOC", ["Istanbul", "Izmir"]) is None
    assert m.first_hit("Ankara", "LOC", []) is None


def test_labels_are_compared_case_insensitively():
    m = matcher("en")
    assert m.discloses("Turkish", "dem", "Turkey") == "ngram"
    assert m.discloses("3 August 2003", "DateTime", "2003-08-03") == "date"
