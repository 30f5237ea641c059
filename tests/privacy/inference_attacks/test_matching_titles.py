"""Issue 24 item 2: titles and honorifics never disclose, in the matcher the inference attack builds
for a corpus (its own frequent lemmas, counted outside the spans, which never hold "Mr"), and the
title list is part of the attack key. The corpus matcher is built as the attack builds it, over a tiny
lemmatiser (tiny_lemmatiser_cache, tests/privacy/conftest.py): what a lemma is, test_matching_golden.py asks
of the real ones."""

from __future__ import annotations

import pytest

from tests.privacy import reid_helpers

pytest.importorskip("spacy")


def test_the_corpus_matcher_lets_no_title_disclose_a_person(tiny_lemmatiser_cache):
    from workbench.privacy.inference_attacks.inference import matcher_for
    corpus = reid_helpers.corpus()
    matcher = matcher_for(corpus, "en")
    assert "mr" not in matcher.frequent  # counted outside the spans: the title is not among them
    # What `privacy infer` records as "disclosed by the replacement" for an imported run:
    assert matcher.discloses("Mr Galip Yalman", "PERSON", "Mr John Smith") is None
    assert matcher.discloses("Mrs Mirela Ostrowska", "PERSON", "Mrs Jane Doe") is None
    assert matcher.discloses("Mr Galip Yalman", "PERSON", "Mr Yalman") == "lemma"
    assert matcher.discloses("Mr Galip Yalman", "PERSON", "mr galip yalman") == "exact"


def test_the_title_list_is_part_of_the_attack_key(monkeypatch):
    from workbench.privacy.inference_attacks.inference import matcher_description
    from workbench.text import overlap_rules
    before = matcher_description()
    assert before["version"] >= 3  # 2 let titles disclose
    monkeypatch.setattr(overlap_rules, "ALL_TITLES", overlap_rules.ALL_TITLES | {"councillor"})
    assert matcher_description()["titles"] != before["titles"]
