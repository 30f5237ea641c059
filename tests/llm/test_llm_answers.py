"""Reading answers: JSON or not, the mask's key or not (003 §4), copied from context (003 App. C)."""

from __future__ import annotations

import pytest

from workbench.llm.answers import MASK_BREAK, InvalidAnswer, copied_from_context, parse_answer, value_for


@pytest.mark.parametrize("content, expected", [
    ('{"MASK.1": "Oslo"}', {"MASK.1": "Oslo"}),
    ('  ```json\n{"MASK.1": "Oslo"}\n```  ', {"MASK.1": "Oslo"}),  # small models like code fences
    ('{}', {}),
])
def test_parse_answer_accepts_json_objects(content, expected):
    assert parse_answer(content) == expected


@pytest.mark.parametrize("content", [
    'Sure! {"MASK.1": "Anna',          # prose and a cut-off object: the stand-in's invalid-json fault
    '{"MASK.1": "Oslo"',                # cut off by num_predict
    '["Oslo"]',                         # JSON, but not an object
    '',
])
def test_parse_answer_rejects_what_is_not_a_json_object(content):
    with pytest.raises(InvalidAnswer):
        parse_answer(content)


@pytest.mark.parametrize("answer, name, number, expected", [
    ({"MASK.NOUN.2": "teacher"}, "MASK.NOUN.2", 2, "teacher"),
    ({"[MASK.NOUN.2]": "teacher"}, "MASK.NOUN.2", 2, "teacher"),       # brackets kept by the model
    ({"mask.noun.2": "teacher"}, "MASK.NOUN.2", 2, "teacher"),         # any case
    ({"MASK.2": "teacher"}, "MASK.NOUN.2", 2, "teacher"),              # the number identifies the gap
    ({"MASK.1": " Anna   Berg "}, "MASK.1", 1, "Anna Berg"),            # whitespace normalised
    ({"MASK.1": 1975}, "MASK.1", 1, "1975"),                            # a number is text enough
])
def test_value_for_finds_the_mask(answer, name, number, expected):
    assert value_for(answer, name, number) == (expected, "")


@pytest.mark.parametrize("answer, name, number, why", [
    ({"MASK.1": "Oslo"}, "MASK.2", 2, "answer lacks MASK.2"),          # 003 §4 case ii
    ({"2": "Oslo"}, "MASK.2", 2, "answer lacks MASK.2"),               # a bare number is no mask key
    ({"MASK.12": "Oslo"}, "MASK.1", 1, "answer lacks MASK.1"),         # 12 is not 1
    ({"MASK.1": "  "}, "MASK.1", 1, "empty answer for MASK.1"),
    ({"MASK.1": ["Oslo"]}, "MASK.1", 1, "answer for MASK.1 is not text"),
    ({"MASK.1": True}, "MASK.1", 1, "answer for MASK.1 is not text"),
    ({"MASK.1": "[MASK.1]"}, "MASK.1", 1, "answer for MASK.1 holds a mask token"),
    ({"MASK.1": "a wedding in [MASK.4]"}, "MASK.1", 1, "answer for MASK.1 holds a mask token"),
])
def test_value_for_says_why_there_is_no_pseudonym(answer, name, number, why):
    assert value_for(answer, name, number) == (None, why)


@pytest.mark.parametrize("pseudonym, context, copied", [
    ("Nordbank", "She works for\nNordbank since 1999.", True),
    ("Nordbank", f"{MASK_BREAK} works for Nordbank.", True),
    ("nordbank", "She works for Nordbank.", True),            # case-insensitive
    ("Anna Berg", f"Anna {MASK_BREAK} Berg was born here.", False),  # a mask between the words breaks it
    ("Anna Berg", "Anna  Berg was born here.", True),         # any whitespace between words
    ("Oslo", "Oslofjord is wide.", False),                    # whole words only
    ("Bergen", "She moved to Oslo.", False),
    ("...", "Wait... what.", False),                          # punctuation alone is not a span
])
def test_copied_from_context(pseudonym, context, copied):
    assert copied_from_context(pseudonym, context) is copied
