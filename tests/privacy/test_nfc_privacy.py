"""Text compared as text in the privacy attacks (issue 37): 004's matching function (with the real
lemmatisers), the known-pair attack, the frequent lemmas the matching function leaves out, and
the retrieval attacker give the same answer whether a text is written in NFC or in NFD.

Each golden row is written in NFC and checked in four forms: both sides NFC, both NFD, and one
side each.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pandas as pd
import pytest

from tests.privacy.inference_helpers import matcher
from workbench.privacy.inference_attacks.inference import nfc_document
from workbench.privacy.inference_attacks.matching import normalise
from workbench.privacy.known_pair import known_pair_counts, stated_in
from workbench.privacy.reid_attacks.background import Background
from workbench.text.compare import nfc


def NFD(text: str) -> str:
    return unicodedata.normalize("NFD", text)


FORMS = {
    "nfc": lambda a, b: (a, b),
    "nfd": lambda a, b: (NFD(a), NFD(b)),
    "nfd first": lambda a, b: (NFD(a), b),
    "nfd second": lambda a, b: (a, NFD(b)),
}

# (lang, label, original, guess, rule): the rule by which the guess discloses the original, in NFC.
MATCHING_GOLDEN = [
    ("sv", "geographic", "Göteborg", "göteborg", "exact"),
    ("sv", "personal_name", "Björn Ångström", "Karin Ångström", "lemma"),  # a shared surname
    ("sv", "personal_name", "Björn Ångström", "Teresa Lind", None),
    ("sv", "other", "Björn Ångström", "Teresa Bäckström", None),  # no shared lemma; "m" is no word of either
    ("sv", "institution", "Södra Älvsborgs Sjukhus", "SÄS", "acronym"),
    ("sv", "geographic", "Västerås", "Västervik", "ngram"),  # 004's loose n-gram rule: "väst"
    ("en", "PERSON", "Zoë Brontë", "Miss Brontë", "lemma"),
]


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("lang, label, original, guess, rule", MATCHING_GOLDEN)
def test_matching_function_in_nfc_and_nfd(form, lang, label, original, guess, rule):
    o, g = FORMS[form](original, guess)
    assert matcher(lang).discloses(o, label, g) == rule


def test_matching_normalise_is_nfc_lower_case():
    assert normalise(NFD("  GÖTEBORG \n")) == "göteborg"


def frame(rows, form):
    """rows: (doc_id, entity_id, label, original, pseudonym) of one run; originals in NFC,
    pseudonyms put in `form`."""
    return pd.DataFrame([{"run_id": "r", "doc_id": d, "entity_id": e, "label": label, "original": o,
                          "pseudonym": form(p), "failed": False} for d, e, label, o, p in rows])


KNOWN_PAIR_ROWS = [
    ("d1", "E1", "personal_name", "Björn Ångström", "Teresa Bäckström"),
    ("d1", "E1", "personal_name", "Ångström", "Bäckström"),  # "Bäckström" reads "Ångström"
    ("d1", "E2", "geographic", "Malmö", "Örebro"),
]


@pytest.mark.parametrize("form", [NFD, lambda text: text.replace("ä", "a\u0308")], ids=["nfd", "mixed"])
def test_known_pair_attack_recovers_the_same_in_nfc_and_nfd(form):
    expected = known_pair_counts(frame(KNOWN_PAIR_ROWS, nfc))
    other = expected[expected["label"] == "personal_name"].iloc[0]
    assert (other["attempts"], other["recovered"]) == (2, 1)  # E1's two mentions; the surname recovered
    pd.testing.assert_frame_equal(known_pair_counts(frame(KNOWN_PAIR_ROWS, form)), expected)


def test_background_states_an_original_written_in_the_other_form():
    stated = stated_in(NFD("Domen gällde Björn Ångström, född i Malmö."))
    assert stated("Björn Ångström") and stated("Malmö") and not stated("Ångström Björn")
    assert stated_in("Domen gällde Björn Ångström.")(NFD("Björn Ångström"))


def test_frequent_lemmas_read_a_document_in_nfc_with_its_spans_where_they_were():
    from tests.helpers.corpus import document_with_mentions
    text = NFD("Rätten i Göteborg dömde Björn Ångström. Rätten i Malmö friade honom.")
    doc = document_with_mentions("t", "d1", text, [(NFD("Björn Ångström"), "personal_name"),
                                                   (NFD("Malmö"), "geographic")], "sv")
    read, ranges = nfc_document(doc)
    assert read == nfc(text)
    assert [read[a:b] for a, b in ranges] == ["Björn Ångström", "Malmö"]
    nfc_doc = document_with_mentions("t", "d1", nfc(text), [("Björn Ångström", "personal_name")], "sv")
    assert nfc_document(nfc_doc)[0] is nfc_doc.text  # a document in NFC is read as it is


def test_retrieval_attacker_finds_a_name_written_in_nfd():
    pytest.importorskip("bm25s")
    from workbench.privacy.reid_attacks.retrieval import RetrievalAttacker, RetrievalConfig
    background = Background(Path("bk.json"), "0" * 64, ("a", "b"),
                            ("Björn Ångström föddes i Göteborg och arbetar på Sahlgrenska.",
                             "Karin Lind föddes i Malmö och arbetar på Skånes universitetssjukhus."))
    attacker = RetrievalAttacker(background, RetrievalConfig(stopwords="sv"))
    query = "Domen gällde Ångström från Göteborg."
    nfd_scores, nfc_scores = attacker.scores([NFD(query), query])
    assert nfc_scores[0] > nfc_scores[1]  # the premise: the names single out "a"
    assert nfd_scores.tolist() == nfc_scores.tolist()
