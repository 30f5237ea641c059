"""Prompts with numbered masks (003 §4): numbering, UPOS tags, repL fills, the JSON schema."""

from __future__ import annotations

import re

import pytest

from workbench.llm.prompt import answer_schema, build_prompt, mask_name
from workbench.text.slots import Gap, Slot, SlotBuilder


def slot(pieces, target):
    return Slot("d", "en", target, "PERSON", "PROPN", tuple(pieces))


def test_masks_are_numbered_in_order_of_appearance():
    s = slot(["A ", Gap(0, "PERSON", "PROPN"), " met ", Gap(1, "PERSON", "PROPN"), " in ", Gap(2, "LOC", "PROPN"), "."],
             target=1)
    p = build_prompt(s, with_upos=False, max_chars=50)
    assert "A [MASK.1] met [MASK.2] in [MASK.3]." in p.user
    assert p.names == ("MASK.1", "MASK.2", "MASK.3")
    assert p.name_of(s.target_number) == "MASK.2"


def test_upos_rides_on_the_mask_and_untagged_gaps_stay_plain():
    s = slot([Gap(0, "PERSON", "PROPN"), " works as a ", Gap(1, "DEM", "NOUN"), " since ", Gap(2, "DATE", None)],
             target=2)
    p = build_prompt(s, with_upos=True, max_chars=50)
    assert "[MASK.PROPN.1] works as a [MASK.NOUN.2] since [MASK.3]" in p.user
    assert p.name_of(s.target_number) == "MASK.3"
    assert "part-of-speech" in p.system  # the model is told what the middle part means
    assert "PROPN" not in build_prompt(s, with_upos=False, max_chars=50).user


def test_repl_fills_are_text_and_numbering_counts_masked_gaps_only():
    s = slot([Gap(0, "PERSON", "PROPN", fill="Maria"), " met ", Gap(1, "PERSON", "PROPN"), " and ",
              Gap(2, "PERSON", "PROPN")], target=1)
    p = build_prompt(s, with_upos=False, max_chars=50)
    assert p.user.count("[MASK.") == 2 and "Maria met [MASK.1] and [MASK.2]" in p.user
    assert p.name_of(s.target_number) == "MASK.1"


def test_schema_requires_exactly_the_mask_keys_as_bounded_strings():
    schema = answer_schema(("MASK.NOUN.1", "MASK.2"), 40)
    assert schema["required"] == ["MASK.NOUN.1", "MASK.2"] and schema["additionalProperties"] is False
    assert schema["properties"]["MASK.2"] == {"type": "string", "minLength": 1, "maxLength": 40}


@pytest.mark.parametrize("number, upos, with_upos, expected", [
    (5, "NOUN", True, "MASK.NOUN.5"),   # 003 §4's example
    (5, "NOUN", False, "MASK.5"),
    (12, None, True, "MASK.12"),        # an untagged span gets no tag rather than "None"
])
def test_mask_name(number, upos, with_upos, expected):
    assert mask_name(number, Gap(0, "X", upos), with_upos) == expected


def test_prompt_never_holds_the_text_of_a_masked_span(tiny_corpus):
    doc = tiny_corpus.document("en-1")
    builder = SlotBuilder(doc, window=2)
    for i in doc.masked_spans:
        p = build_prompt(builder.slot(i), with_upos=True, max_chars=100)
        for span in doc.spans:
            assert not re.search(rf"\b{re.escape(span.text)}\b", p.user), (i, span.text)
        assert len(p.names) == p.user.count("[MASK.")
