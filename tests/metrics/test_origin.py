"""Origin and place fidelity (workbench.metrics.origin) on tiny hand-made EN and SV texts: which
replacements keep a name's origin (Faker's locale lists) and a place's country and region (the
GeoNames gazetteer), what is unknown, and the divergence between the distributions."""

from __future__ import annotations

import math

import pytest

from tests.helpers.corpus import document_with_mentions
from tests.metrics.conftest import add_run, hand_run, make_context
from workbench.data_model import Corpus
from workbench.metrics import compute_metrics, metric_frame
from workbench.metrics.origin import compute, jensen_shannon, span_values, spread
from workbench.metrics.unit_values import SPAN, unit_values
from workbench.text import origins

EN = "Ahmed lives in Kiruna. He moved there from Oslo."
SV = "Ahmed bor i Kiruna. Farzana flyttade dit från Oslo."


def nan_to_none(values):
    return [None if math.isnan(v) else v for v in values]


# (text, lang, mentions, pseudonyms, origin_kept per span, place_country_kept, place_region_kept)
CASES = [
    # Ahmed -> Sven loses the origin, Kiruna -> Springfield the country (and the region).
    (EN, "en", [("Ahmed", "PERSON"), ("Kiruna", "LOC"), ("Oslo", "LOC")], ["Sven", "Springfield", "Bergen"],
     [0, None, None], [None, 0, 1], [None, 0, 0]),
    # Their keeping counterparts: Mohammed, and Luleå (Kiruna's region, Norrbotten); Oslo -> Stockholm
    # leaves Norway.
    (EN, "en", [("Ahmed", "PERSON"), ("Kiruna", "LOC"), ("Oslo", "LOC")], ["Mohammed", "Luleå", "Stockholm"],
     [1, None, None], [None, 1, 0], [None, 1, 0]),
    # Swedish labels of PGV-PII; Kiruna -> Göteborg keeps Sweden but not the region; Farzana is in no
    # Faker list: its origin is unknown, not judged whatever it becomes.
    (SV, "sv", [("Ahmed", "personal_name"), ("Kiruna", "geographic"), ("Farzana", "personal_name"),
                ("Oslo", "geographic")], ["Sven", "Göteborg", "Ali", "Sverige"],
     [0, None, None, None], [None, 1, None, None], [None, 0, None, None]),
    # A replacement no source knows, and a FAILED one, are not judged either.
    (SV, "sv", [("Ahmed", "personal_name"), ("Kiruna", "geographic")], ["Zorkqux", None],
     [None, None], [None, None], [None, None]),
    # A country named alone has a country and no region: judged for the country only.
    ("Ahmed came from Turkey.", "en", [("Ahmed", "PERSON"), ("Turkey", "LOC")], ["Hassan", "Istanbul"],
     [1, None], [None, 1], [None, None]),
]


@pytest.mark.parametrize("text, lang, mentions, pseudonyms, kept, country, region", CASES)
def test_origin_rule_by_case(store, text, lang, mentions, pseudonyms, kept, country, region):
    _, frame = hand_run(store, text, lang, mentions, pseudonyms)
    values = span_values(frame)
    assert nan_to_none(values["origin_kept"].tolist()) == kept
    assert nan_to_none(values["place_country_kept"].tolist()) == country
    assert nan_to_none(values["place_region_kept"].tolist()) == region
    result = compute(frame).iloc[0]
    assert result["origin_judged"] == sum(v is not None for v in kept)
    assert result["place_judged"] == sum(v is not None for v in country)


def test_unknown_originals_are_counted_apart(store):
    # Farzana is unknown: the person coverage is one of two; both places are known.
    _, frame = hand_run(store, *CASES[2][:4])
    result = compute(frame).iloc[0]
    assert result["origin_known"] == 0.5 and result["place_known"] == 1.0
    assert result["origin_kept"] == 0.0 and result["origin_judged"] == 1


def test_the_origin_sources_read_what_they_list():
    # The shipped lists, read: Ahmed and Sven share some locales (both are in sv_SE's lists, Sweden's
    # common names) but not half of them; a place's origin is its country and GeoNames region.
    ahmed, sven = origins.name_origin("Ahmed"), origins.name_origin("Sven")
    assert "sv_SE" in ahmed & sven and origins.origin_overlap(ahmed, sven) < origins.KEEP_AT
    assert origins.place_origin("Kiruna") == frozenset({("SE", "14")})
    assert origins.place_origin("Kirunas", "sv") == origins.place_origin("Kiruna")  # a Swedish genitive
    assert origins.countries(origins.place_origin("Springfield")) == frozenset({"US"})
    assert origins.name_origin("Farzana") is None and origins.place_origin("Zorkqux") is None


def test_jensen_shannon_by_hand():
    # Countries: originals {SE, NO}, replacements {SE, US}: half the mass moved to a disjoint country.
    assert jensen_shannon(spread([{"SE"}, {"NO"}]), spread([{"SE"}, {"US"}])) == pytest.approx(0.5)
    assert jensen_shannon(spread([{"SE"}]), spread([{"US"}])) == pytest.approx(1.0)
    assert jensen_shannon(spread([{"SE", "NO"}]), spread([{"NO"}, {"SE"}])) == pytest.approx(0.0)
    assert math.isnan(jensen_shannon(spread([]), spread([{"SE"}])))


def test_divergence_per_run(store):
    # Kiruna -> Luleå keeps Sweden, Oslo -> Springfield leaves Norway for the US: 0.5 as above.
    _, frame = hand_run(store, EN, "en", [("Kiruna", "LOC"), ("Oslo", "LOC")], ["Luleå", "Springfield"])
    result = compute(frame).iloc[0]
    assert result["place_js"] == pytest.approx(0.5) and result["place_country_kept"] == 0.5
    assert math.isnan(result["origin_js"])  # no person span


def test_per_run_and_language_through_compute_metrics(store):
    corpus = Corpus("hand", "tests", (
        document_with_mentions("hand", "en-1", EN, [("Ahmed", "PERSON"), ("Kiruna", "LOC")], "en"),
        document_with_mentions("hand", "sv-1", SV, [("Ahmed", "personal_name"), ("Kiruna", "geographic")], "sv")))
    run_id = add_run(store, corpus, {"en-1": ["Mohammed", "Springfield"], "sv-1": ["Sven", "Luleå"]})
    table = compute_metrics(metric_frame(store, [run_id]), make_context(), families=["origin"], originals=False,
                            uncertainty=True)
    assert table.loc[f"{run_id}@en", ["origin_kept", "place_country_kept"]].tolist() == [1.0, 0.0]
    assert table.loc[f"{run_id}@sv", ["origin_kept", "place_country_kept"]].tolist() == [0.0, 1.0]
    assert "origin_kept_low" in table.columns and "origin_judged_low" not in table.columns


def test_the_shares_have_span_units(store):
    _, frame = hand_run(store, *CASES[0][:4])
    units = unit_values(frame, None, ["origin"])
    assert {"origin_kept", "place_country_kept"} <= set(units)
    assert units["origin_kept"].kind == SPAN and "origin_js" not in units


def test_the_agreement_table_has_the_pronoun_and_origin_columns(store):
    from workbench.reports.table_specs import TABLES
    from workbench.reports.tables import flat_cells
    text = "Anna Berg lives in Kiruna. She moved there from Oslo."
    _, frame = hand_run(store, text, "en", [("Anna Berg", "PERSON"), ("Kiruna", "LOC"), ("Oslo", "LOC")],
                        ["Mohammed Smith", "Springfield", "Bergen"])
    table = compute_metrics(frame, make_context(), families=["pronouns", "origin"], originals=False)
    headers, rows = flat_cells(table, next(t for t in TABLES if t.name == "table_agreement"))
    assert [h.split(":")[0] for h in headers[-3:]] == ["Pronouns %", "Origin kept %", "Origin kept %"]
    # Mohammed for Anna: a male name where `She` refers (100 % contradicted), sharing under half of Anna's
    # locales (0 % kept, see the overlap below); Kiruna -> Springfield leaves Sweden, Oslo -> Bergen
    # stays in Norway (50 %).
    assert origins.origin_overlap(origins.name_origin("Anna"), origins.name_origin("Mohammed")) < origins.KEEP_AT
    assert rows[0][-3:] == ["100.0", "0.0", "50.0"]
