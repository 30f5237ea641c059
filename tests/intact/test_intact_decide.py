"""INTACT's selection logic for one span (workbench.adapters.intact.decide) with a scripted LLM and attacker:
first undisclosed candidate kept, all disclosed -> label, direct identifiers -> label with no request,
dates by rule, requests counted, failures as the engine counts them."""

from __future__ import annotations

import pytest
from intact_helpers import ScriptedAttacker, ScriptedClient, simple_matcher

from tests.helpers.corpus import document_with_mentions
from workbench.adapters.intact.decide import DIRECT_NOTE, Settings, SpanToSanitise, Tools, decide
from workbench.generator_contract.base import is_unreachable
from workbench.llm.client import Outcome
from workbench.privacy.inference_attacks.inference_contract import Guesses
from workbench.text.slots import SlotBuilder

TEXT = ("Anna Berg was born in Oslo on 3 August 1975. She moved to Paris in 1999 and works for Nordbank. "
        "Her brother lives in Oslo.")
MENTIONS = [("Anna Berg", "PERSON"), ("Oslo", "LOC"), ("3 August 1975", "DATETIME"), ("Paris", "LOC"),
            ("1999", "DATETIME"), ("Nordbank", "ORG"), ("Oslo", "LOC")]


def document(mentions=MENTIONS, text=TEXT, lang="en", identifier_types=None):
    typed = [(mention, label, {"identifier_type": (identifier_types or {}).get(k, "")})
             for k, (mention, label) in enumerate(mentions)]
    return document_with_mentions("test", "d1", text, typed, lang)


def span(doc, i, picks=None):
    slot = SlotBuilder(doc).slot(i, picks or {})
    s = doc.spans[i]
    return SpanToSanitise(doc.doc_id, i, doc.lang, s.label, s.text, s.identifier_type, slot.pieces)


def tools(client, attacker):
    return Tools(client, attacker, lambda lang: simple_matcher(), Settings(seed=7))


def test_the_first_candidate_the_attack_does_not_disclose_is_kept_and_later_ones_are_not_attacked():
    client = ScriptedClient({"Paris": ["a large city in France", "a European capital", "a city", "a place"]})
    attacker = ScriptedAttacker({"a large city in France": ["Paris", "Lyon"]})
    decision = decide(span(document(), 3), tools(client, attacker))
    assert decision.replacement == "a European capital" and not decision.failed
    assert [t.replacement for t in attacker.targets] == ["a large city in France", "a European capital"]
    assert decision.requests == 1 + 2  # one candidate request, two attacks
    assert decision.note == "intact: llm candidate 2 kept (1 disclosed)"


def test_every_candidate_disclosed_gives_the_label():
    client = ScriptedClient({"Nordbank": ["a Nordic bank", "a bank", "a company"]})
    attacker = ScriptedAttacker({"a bank": ["Nordea"], "a company": ["the Nordbank group"]})
    decision = decide(span(document(), 5), tools(client, attacker))
    # "a Nordic bank" is disclosed by itself (the 4-gram "nord" of a name word), without an attack.
    assert decision.replacement == "ORG" and decision.note == "intact: label (3 of 3 llm candidates disclosed)"
    assert [t.replacement for t in attacker.targets] == ["a bank", "a company"]
    assert decision.requests == 1 + 2


def test_a_candidate_equal_to_the_original_is_dropped_before_any_attack():
    client = ScriptedClient({"Paris": ["Paris", "paris ", "a capital"]})
    attacker = ScriptedAttacker({})
    decision = decide(span(document(), 3), tools(client, attacker))
    assert decision.candidates == ("a capital",) and decision.replacement == "a capital"


@pytest.mark.parametrize("index,identifier_types,label", [
    (0, None, "PERSON"),  # no identifier types in the corpus: PERSON is direct
    (1, {1: "DIRECT"}, "LOC"),  # TAB's DIRECT, whatever the label
])
def test_direct_identifiers_get_the_label_without_any_request(index, identifier_types, label):
    client, attacker = ScriptedClient({}), ScriptedAttacker({})
    decision = decide(span(document(identifier_types=identifier_types), index), tools(client, attacker))
    assert (decision.replacement, decision.note, decision.requests) == (label, DIRECT_NOTE, 0)
    assert client.prompts == [] and attacker.targets == []


def test_a_quasi_identifying_person_is_generalised_like_any_span():
    client = ScriptedClient({"Anna Berg": ["a woman born in Norway", "a woman"]})
    decision = decide(span(document(identifier_types={0: "QUASI"}), 0), tools(client, ScriptedAttacker({})))
    assert decision.replacement == "a woman born in Norway" and len(client.prompts) == 1
    assert "[[Dr Anna Keller]]" in client.prompts[0][0].system  # the PERSON example


def test_dates_follow_the_rule_chain_with_no_candidate_request():
    client = ScriptedClient({})
    # 004 §5.2: a date is disclosed only by the same date ("1975" does not give "3 August 1975" away).
    attacker = ScriptedAttacker({"August 1975": ["3 August 1975"], "1975": ["1975", "3 Aug. 1975"]})
    decision = decide(span(document(), 2), tools(client, attacker))
    assert decision.candidates == ("August 1975", "1975", "the 1970s") and decision.source == "rule"
    assert decision.replacement == "the 1970s" and client.prompts == []
    assert decision.note == "intact: rule candidate 3 kept (2 disclosed)" and decision.requests == 3


def test_a_date_the_rules_cannot_read_goes_to_the_llm():
    text = "The hearing took place between 1982 and 1984 in Oslo."
    doc = document([("between 1982 and 1984", "DATETIME"), ("Oslo", "LOC")], text)
    client = ScriptedClient({"between 1982 and 1984": ["in the early 1980s", "in the 1980s"]})
    decision = decide(span(doc, 0), tools(client, ScriptedAttacker({})))
    assert decision.source == "llm" and decision.replacement == "in the early 1980s"


def test_the_attacker_reads_the_sanitised_window_never_the_original():
    doc = document()
    client = ScriptedClient({"Paris": ["a European capital"]})
    attacker = ScriptedAttacker({})
    decide(span(doc, 3, picks={0: "PERSON", 1: "a Nordic capital", 2: "the 1970s"}), tools(client, attacker))
    target = attacker.targets[0]
    assert target.replacement == "a European capital"
    # Decided spans carry their picks; spans not yet decided carry their label; no original.
    assert "PERSON was born in a Nordic capital on the 1970s" in target.text
    assert "in DATETIME and works for ORG" in target.text and "Paris" not in target.text
    # The candidate prompt holds the span's sentence, the target bracketed.
    assert "Original: She moved to [[Paris]] in DATETIME and works for ORG." in client.prompts[0][0].user


def test_swedish_spans_get_the_swedish_example_and_the_language_named():
    text = "Karin Ström föddes i Göteborg den 3 augusti 1980 och arbetar på Sahlgrenska."
    doc = document([("Karin Ström", "personal_name"), ("Göteborg", "geographic"), ("3 augusti 1980", "date"),
                    ("Sahlgrenska", "institution")], text, lang="sv")
    client = ScriptedClient({"Sahlgrenska": ["ett sjukhus i Göteborg", "ett sjukhus"]})
    attacker = ScriptedAttacker({"augusti 1980": ["3 augusti 1980"]})
    person = decide(span(doc, 0), tools(client, attacker))
    date = decide(span(doc, 2), tools(client, attacker))
    org = decide(span(doc, 3), tools(client, attacker))
    assert person.note == DIRECT_NOTE and person.replacement == "personal_name"
    assert date.replacement == "1980" and date.candidates == ("augusti 1980", "1980", "1980-talet")
    assert ("Solgläntans psykiatriska sjukhus" in client.prompts[0][0].system
            and "Swedish" in client.prompts[0][0].system)
    # "ett sjukhus i Göteborg" is kept: it shares nothing with "Sahlgrenska" by the matching rules.
    assert org.replacement == "ett sjukhus i Göteborg"


def test_a_candidate_request_that_times_out_fails_the_span_as_unreachable():
    note = "unreachable: timeout after 1 s (after 3 requests)"
    client = ScriptedClient({"Paris": Outcome(None, note, 3, 3.0)})
    attacker = ScriptedAttacker({})
    decision = decide(span(document(), 3), tools(client, attacker))
    assert decision.failed and decision.note == note and is_unreachable(decision.note)
    assert decision.requests == 3 and attacker.targets == []


def test_an_attack_that_times_out_fails_the_span_and_keeps_nothing_unchecked():
    client = ScriptedClient({"Paris": ["a large city in France", "a European capital"]})
    attacker = ScriptedAttacker({"a European capital": Guesses((), "unreachable: timeout after 1 s (after 2 requests)",
                                                               2),
                                 "a large city in France": ["Paris"]})
    decision = decide(span(document(), 3), tools(client, attacker))
    assert decision.failed and decision.replacement == ""
    assert is_unreachable(decision.note) and "attack on candidate 2 of 2" in decision.note
    assert decision.requests == 1 + 1 + 2


def test_an_answer_with_nothing_usable_falls_back_to_the_label():
    client = ScriptedClient({"Paris": ["Paris", " "]})
    decision = decide(span(document(), 3), tools(client, ScriptedAttacker({})))
    assert not decision.failed and decision.replacement == "LOC"
    assert decision.note == "intact: label (llm gave no candidate)"
