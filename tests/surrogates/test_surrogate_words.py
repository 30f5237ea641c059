"""Textual spans: per-word Faker draws by label, one mapping per document, shapes and genders kept."""

from __future__ import annotations

import re

import pytest

from tests.surrogates.surrogate_helpers import bilingual_corpus, maker, surrogates_of
from workbench.adapters.surrogate.spans import NOTE_NOTHING, NOTE_WORDS_DRAWN


def test_the_same_word_gets_the_same_surrogate_everywhere_in_a_document():
    out = surrogates_of(bilingual_corpus(), maker())
    assert out[("en-a", 0)] == out[("en-a", 8)]  # "Anna Berg" twice
    assert out[("en-a", 3)] == out[("en-a", 6)]  # "Oslo" twice
    first, last = out[("en-a", 0)].split()
    assert out[("en-a", 13)] == f"{last}'s"  # "Berg's": the bare word maps as in the full name
    assert out[("sv-a", 7)] == out[("sv-a", 0)].split()[1]  # "Ström" alone and in "Karin Ström"


def test_the_mapping_does_not_depend_on_the_order_slots_arrive_in():
    corpus = bilingual_corpus()
    forward = surrogates_of(corpus, maker())
    backward = surrogates_of(corpus, maker(), order=lambda items: list(reversed(items)))
    interleaved = surrogates_of(corpus, maker(), order=lambda items: items[1::2] + items[::2])
    assert forward == backward == interleaved


def test_documents_draw_their_own_mappings():
    m = maker()
    names = {m.from_original("Anna Berg", "PERSON", "en", f"doc-{n}").text for n in range(12)}
    assert len(names) > 6  # 002 anonymises each instance on its own


@pytest.mark.parametrize("seed", [1, 2])
def test_same_seed_same_output_and_another_seed_another(seed):
    corpus = bilingual_corpus()
    first = surrogates_of(corpus, maker(seed=seed))
    assert surrogates_of(corpus, maker(seed=seed)) == first  # a fresh maker: nothing remembered
    other = surrogates_of(corpus, maker(seed=seed + 100))
    assert sum(first[k] != other[k] for k in first) > len(first) * 0.8


def test_no_surrogate_equals_its_original_and_no_drawn_word_its_word():
    corpus = bilingual_corpus()
    for seed in range(5):
        out = surrogates_of(corpus, maker(seed=seed))
        for (doc_id, i), text in out.items():
            original = corpus.document(doc_id).spans[i].text
            assert text.casefold() != original.casefold(), (original, text)
            if maker().table.rule(corpus.document(doc_id).spans[i].label).kind == "words":
                kept = maker().table.keep[corpus.document(doc_id).lang]
                for a, b in zip(re.findall(r"\w+", original), re.findall(r"\w+", text)):
                    assert a.casefold() in kept or a == "s" or a.casefold() != b.casefold(), (original, text)


@pytest.mark.parametrize("text,label,lang,pattern", [
    ("berg", "PERSON", "en", r"[a-z]+"),  # small letters stay small
    ("Mr J. Wołąsiewicz", "PERSON", "en", r"Mr [A-Z]\. [A-Z][a-z]+"),  # a title kept, an initial a letter
    ("Dr. Price", "PERSON", "en", r"Dr\. [A-Z][a-z]+"),
    ("Court of Appeal", "ORG", "en", r"[A-Z][a-z]+ of [A-Z][a-z]+"),  # function words kept
    ("San Cristóbal de las Casas", "LOC", "en", r"\w+ \w+ de las \w+"),
    ("DPP", "ORG", "en", r"[A-Z]{3}"),  # an initialism: random capitals
    ("NICs", "MISC", "en", r"[A-Z]{3}s"),
    ("DPP:s", "institution", "sv", r"[A-Z]{3}:s"),  # a Swedish genitive ending stays
    ("@Solidus_Fahad", "personal_name", "sv", r"@[A-ZÅÄÖ][a-zåäöéü]+_[A-ZÅÄÖ][a-zåäöéü]+"),
    ("Julie70", "personal_name", "sv", r"[A-ZÅÄÖ][a-zåäöéü]+[1-9]\d"),
    ("läkare", "other", "sv", r"[a-zåäöé]+"),
])
def test_words_keep_their_shape(text, label, lang, pattern):
    made = maker().from_original(text, label, lang, "doc")
    assert re.fullmatch(pattern, made.text), made.text
    assert made.text != text


@pytest.mark.parametrize("text,label,lang", [
    ("ANNA BERG", "PERSON", "en"),  # names in capitals are words, not initialisms
    ("KARIN STRÖM", "personal_name", "sv"),
    ("KIM", "PERSON", "en"),
    ("USA", "geographic", "sv"),  # sv_SE's countries hold it
])
def test_a_dictionary_word_in_capitals_draws_a_dictionary_word_in_capitals(text, label, lang):
    m = maker()
    rule = m.table.rule(label)
    made = m.from_original(text, label, lang, "doc")
    for old, new in zip(text.split(), made.text.split(), strict=True):
        assert new.isupper() and new != old, made.text
        assert any(m.dictionaries.holds(lang, d, new) for d in rule.dictionaries), made.text
    # The same words as in title case: one mapping, the case applied afterwards.
    assert made.text == m.from_original(text.title(), label, lang, "doc").text.upper()


def test_capitals_no_dictionary_of_the_label_holds_are_an_initialism():
    m = maker()
    for text, label in (("SOTP", "MISC"), ("HADEP", "ORG"), ("DPP", "ORG")):
        made = m.from_original(text, label, "en", "doc").text
        assert re.fullmatch(r"[A-Z]+", made) and len(made) == len(text) and made != text
        assert made == m.mapping.letters("doc", label, text)  # random capitals, not a dictionary word


def test_a_span_of_kept_words_only_has_them_drawn_and_says_so():
    made = maker().from_original("Mr", "PERSON", "en", "doc")
    assert made.note == NOTE_WORDS_DRAWN and made.text != "Mr" and made.text[0].isupper()
    assert maker().from_original("—", "PERSON", "en", "doc") == type(made)("", NOTE_NOTHING, failed=True)


def test_words_come_from_the_dictionary_the_table_names_for_the_label():
    m = maker()
    d = m.dictionaries
    assert m.from_original("Göteborg", "geographic", "sv", "doc").text in d.pool("sv", "city")  # sv_SE: real cities
    assert m.from_original("Frankrike", "geographic", "sv", "doc").text.casefold() in d._members("sv", "country")
    karin, strom = m.from_original("Karin Ström", "personal_name", "sv", "doc").text.split()
    assert d.holds("sv", "first_name", karin) and d.holds("sv", "last_name", strom)
    assert m.from_original("läkare", "other", "sv", "doc").text in d.pool("sv", "pud:NOUN")  # the fallback


NAMES = {"en": {"male": ["John", "Robert", "Michael", "David"], "female": ["Mary", "Patricia", "Jennifer", "Linda"]},
         "sv": {"male": ["Lars", "Anders", "Johan", "Per"], "female": ["Karin", "Eva", "Kristina", "Maria"]}}


@pytest.mark.parametrize("lang", ["en", "sv"])
def test_keep_gender_draws_a_first_name_of_the_originals_gender(lang):
    kept, free = maker(keep_gender=True), maker(keep_gender=False)
    d = kept.dictionaries
    for gender, names in NAMES[lang].items():
        assert all(d.gender(lang, n) == gender for n in names)  # the guess, from Faker's gendered lists
        drawn = [kept.from_original(f"{n} Berg", "PERSON", lang, f"doc-{k}").text.split()[0]
                 for n in names for k in range(5)]
        assert all(d.gender(lang, w) in (gender, None) and d.holds(lang, f"first_name_{gender}", w) for w in drawn)
    # Without the option a name of either gender may come: the option is what keeps it.
    drawn = [free.from_original(f"{n} Berg", "PERSON", lang, f"doc-{k}").text.split()[0]
             for n in NAMES[lang]["female"] for k in range(10)]
    assert any(free.dictionaries.gender(lang, w) == "male" for w in drawn)
