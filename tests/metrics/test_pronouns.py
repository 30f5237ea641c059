"""Pronoun coherence (workbench.metrics.pronouns) on tiny hand-made EN and SV texts: which pronouns
refer to a mention by the documented rule, and when a replacement's gender contradicts them."""

from __future__ import annotations

import math

import pytest

from tests.metrics.conftest import add_run, hand_run, make_context
from workbench.metrics import compute_metrics, metric_frame
from workbench.metrics.pronouns import compute, span_values
from workbench.metrics.unit_values import SPAN, unit_values

# (text, lang, [(mention, label)], pseudonyms, the expected value per span: 1 contradiction,
#  0 agreement, None not judged), each row the case it guards.
CASES = [
    # `She` in the next sentence, a male surrogate: a contradiction.
    ("Anna Berg was born in Oslo. She moved to Paris.", "en",
     [("Anna Berg", "PERSON"), ("Oslo", "LOC"), ("Paris", "LOC")], ["John Smith", "Bergen", "Rome"], [1, None, None]),
    # ... and a female one agrees.
    ("Anna Berg was born in Oslo. She moved to Paris.", "en",
     [("Anna Berg", "PERSON")], ["Mary Jones"], [0]),
    # `hon` after a male surrogate (Swedish labels of PGV-PII).
    ("Karin Ström föddes i Göteborg. Hon arbetar som läkare.", "sv",
     [("Karin Ström", "personal_name")], ["Sven Ek"], [1]),
    # `hen` is neutral: refers to anyone, never a contradiction, so nothing is judged.
    ("Karin Ström föddes i Göteborg. Hen arbetar som läkare.", "sv",
     [("Karin Ström", "personal_name")], ["Sven Ek"], [None]),
    # `hen` beside `hon`: the gendered pronoun decides.
    ("Karin Ström träffade hen i Malmö. Hon arbetar som läkare.", "sv",
     [("Karin Ström", "personal_name")], ["Sven Ek"], [1]),
    # A pronoun after the next person mention is that person's, not the first's: Anna is not judged
    # (a female pronoun attributed to her would have contradicted John), Olle's male surrogate agrees.
    ("Anna Berg met Olle Holm in Oslo. He was late.", "en",
     [("Anna Berg", "PERSON"), ("Olle Holm", "PERSON")], ["John Smith", "Peter Lund"], [None, 0]),
    ("Anna Berg met Olle Holm in Oslo. She was late.", "en",
     [("Anna Berg", "PERSON"), ("Olle Holm", "PERSON")], ["John Smith", "Peter Lund"], [None, 1]),
    # Two sentences on, the pronoun is out of reach.
    ("Anna Berg came home. It rained all day. She slept.", "en",
     [("Anna Berg", "PERSON")], ["John Smith"], [None]),
    # Both genders after a mention: no clear referent, not judged.
    ("Anna Berg told him the news. She left.", "en", [("Anna Berg", "PERSON")], ["John Smith"], [None]),
    # First and last name annotated as two adjacent spans are one mention; the surname's gender is unknown.
    ("Karin Ström föddes i Göteborg. Hon arbetar som läkare.", "sv",
     [("Karin", "personal_name"), ("Ström", "personal_name")], ["Sven", "Ek"], [1, None]),
    # A word inside a span is no pronoun ("Her Majesty's Prison" is an ORG).
    ("Anna Berg works at Her Majesty's Prison Leeds.", "en",
     [("Anna Berg", "PERSON"), ("Her Majesty's Prison Leeds", "ORG")], ["John Smith", "Acme"], [None, None]),
    # Only whole words: `the`, `Helen`, `hence` hold no `he`.
    ("Anna Berg saw Helen's house; hence the visit.", "en", [("Anna Berg", "PERSON")], ["John Smith"], [None]),
    # A replacement whose gender is unknown is never guessed; a FAILED one has none.
    ("Anna Berg was born in Oslo. She moved.", "en", [("Anna Berg", "PERSON")], ["Zork Qux"], [None]),
    ("Anna Berg was born in Oslo. She moved.", "en", [("Anna Berg", "PERSON")], [None], [None]),
]


@pytest.mark.parametrize("text, lang, mentions, pseudonyms, expected", CASES)
def test_pronoun_rule_by_case(store, text, lang, mentions, pseudonyms, expected):
    _, frame = hand_run(store, text, lang, mentions, pseudonyms)
    values = span_values(frame)["pronoun_contradiction"].tolist()
    assert [None if math.isnan(v) else v for v in values] == expected
    result = compute(frame).iloc[0]
    judged = [v for v in expected if v is not None]
    assert result["pronoun_judged"] == len(judged)
    if judged:
        assert result["pronoun_contradiction"] == pytest.approx(sum(judged) / len(judged))
    else:
        assert math.isnan(result["pronoun_contradiction"])


def test_per_run_share_and_count_on_the_tiny_corpus(store, tiny_corpus):
    # tiny_corpus's persons with a pronoun: en-1's Anna Berg twice (`She`, then `Her` before Olle),
    # Olle (`He`), sv-1's first Karin Ström (`Hon`). Anna Berg -> John Smith both times contradicts;
    # Olle -> Per is of unknown English gender; Karin Ström -> Lena Ek agrees. Per language.
    pseudonyms = {"en-1": ["John Smith", "Bergen", "1980", "Rome", "2001", "John Smith", "Acme", "Per", "Oslo", "x"],
                  "en-2": ["Jan Nowak", "Eva Nowak", "Krakow", "K. Zieliński"],
                  "sv-1": ["Lena Ek", "Lund", "1985", "lärare", "Karolinska", "Lena Ek", "Lund"]}
    run_id = add_run(store, tiny_corpus, pseudonyms)
    table = compute_metrics(metric_frame(store, [run_id]), make_context(), families=["pronouns"], originals=False,
                            uncertainty=True)
    assert table.loc[f"{run_id}@en", ["pronoun_contradiction", "pronoun_judged"]].tolist() == [1.0, 2.0]
    assert table.loc[f"{run_id}@sv", ["pronoun_contradiction", "pronoun_judged"]].tolist() == [0.0, 1.0]
    # The share is a mean over spans (it gets an interval); the count is not.
    assert "pronoun_contradiction_low" in table.columns and "pronoun_judged_low" not in table.columns


def test_the_share_has_span_units_and_the_count_none(store):
    _, frame = hand_run(store, *CASES[0][:4])
    units = unit_values(frame, None, ["pronouns"])
    assert set(units) == {"pronoun_contradiction"} and units["pronoun_contradiction"].kind == SPAN
