"""Reading the judge's answer and what it is asked (workbench.annotation.judge_prompt)."""

from __future__ import annotations

import pytest

from workbench.annotation.judge_prompt import PROMPT_VERSION, answer_schema, build_judge_prompt, read_tag
from workbench.annotation.pseudonym_context import ItemContext
from workbench.annotation.tagset import load_tagset
from workbench.llm.answers import InvalidAnswer
from workbench.text.replace import Replaced

TAGSET = load_tagset()


@pytest.mark.parametrize("answer, tag", [
    ({"tag": "POS"}, "POS"),
    ({"tag": " sem:merged-entity "}, "SEM:MERGED-ENTITY"),  # case and spaces: still one tag
    ({"tag": "NO_ERROR", "why": "fits"}, "NO_ERROR"),
])
def test_a_tag_of_the_tagset_is_read(answer, tag):
    assert read_tag(answer, TAGSET) == tag


@pytest.mark.parametrize("answer, why", [
    ({"tag": "MAYBE"}, "unknown tag 'MAYBE'"),
    ({"tag": "5"}, "unknown tag '5'"),  # a key is not guessed at
    ({"label": "POS"}, "answer lacks a 'tag' string"),
    ({"tag": ["POS"]}, "answer lacks a 'tag' string"),
])
def test_anything_else_is_an_invalid_answer_the_client_retries(answer, why):
    with pytest.raises(InvalidAnswer, match=why):
        read_tag(answer, TAGSET)


def test_the_schema_allows_only_the_tags_in_precedence_order():
    schema = answer_schema(TAGSET)
    assert schema["required"] == ["tag"] and schema["additionalProperties"] is False
    assert schema["properties"]["tag"]["enum"] == list(TAGSET.names)
    assert schema["properties"]["tag"]["enum"][:2] == ["NO_ERROR", "FAILED"]  # Appendix C's order


def test_the_prompt_shows_what_an_annotator_sees():
    text = "Eva met Per in Lund. Per left."
    ctx = ItemContext("r", "d", 1, "sv", "PERSON", "e1", "Olle", "Per", False, text, (8, 11),
                      (Replaced(0, 0, 3, "Anna", "Eva"), Replaced(2, 21, 24, "Olle", "Per")))
    prompt = build_judge_prompt(ctx, TAGSET)
    assert "Eva met ⟦Per⟧ in Lund. Per left." in prompt.user  # the target marked, the second Per not
    assert "Original (PERSON): Olle" in prompt.user and "Language: Swedish" in prompt.user
    assert "- Anna → Eva" in prompt.user and "- Olle → Per" in prompt.user
    tags = prompt.system.split("\n\n")[1].splitlines()
    assert [line.split(":")[0] for line in tags][:3] == ["1. NO_ERROR", "2. FAILED", "3. OVERLAP"]
    assert prompt.names == ("tag",) and PROMPT_VERSION == "judge-1"
