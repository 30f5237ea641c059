"""INTACT's rules without a model: the date chains (EN, SV), direct identifiers, the one-shot examples
and the candidate prompt's JSON schema."""

from __future__ import annotations

import json
import re

import pytest

from workbench.adapters.intact.dates import DATE_FUNCTION_WORDS, date_generalisations
from workbench.adapters.intact.direct import is_direct
from workbench.adapters.intact.prompts import candidate_prompt, example_for, load_examples
from workbench.text.dates import _TOKEN

DATES = [
    # (original, lang, chain): day -> month and year -> year -> decade
    ("3 August 2003", "en", ("August 2003", "2003", "the 2000s")),
    ("August 3rd, 2003", "en", ("August 2003", "2003", "the 2000s")),
    ("on the 3rd of August 1999", "en", ("August 1999", "1999", "the 1990s")),
    ("03/08/2003", "en", ("August 2003", "2003", "the 2000s")),  # day first, as TAB writes them
    ("2003-08-03", "en", ("August 2003", "2003", "the 2000s")),  # ISO
    ("September 1980", "en", ("1980", "the 1980s")),
    ("1989", "en", ("the 1980s",)),
    ("29 November", "en", ("November",)),
    # Swedish "2000-talet" and "1900-talet" are centuries: a century's first decade is named as such.
    ("den 3:e augusti 2003", "sv", ("augusti 2003", "2003", "2000-talets första decennium")),
    ("12 mars 1999", "sv", ("mars 1999", "1999", "1990-talet")),
    ("juli 2008", "sv", ("2008", "2000-talets första decennium")),
    ("år 1905", "sv", ("1900-talets första decennium",)),
    ("år 1980", "sv", ("1980-talet",)),
    ("2012", "sv", ("2010-talet",)),
    # Not a single calendar date: no rule, the LLM is asked (004 §5.2's fallback).
    ("between 1982 and 1984", "en", ()),
    ("30 years", "en", ()),
    ("Saturday September 24, 2011", "en", ()),
    ("sex månader", "sv", ()),
    ("maj", "sv", ()),  # a month alone: nothing more general by rule
]


@pytest.mark.parametrize("original,lang,chain", DATES, ids=[d[0] for d in DATES])
def test_date_rule_chain(original, lang, chain):
    assert date_generalisations(original, lang) == chain


def test_every_date_function_word_is_a_token_the_date_reader_can_meet():
    # An entry the reader never produces (",") would only suggest it matters.
    assert all([m.group() for m in _TOKEN.finditer(word)] == [word] for word in DATE_FUNCTION_WORDS)


@pytest.mark.parametrize("label,identifier_type,direct", [
    ("PERSON", "", True), ("CODE", "", True), ("personal_name", "", True), ("person", "", True),
    ("LOC", "", False), ("DATETIME", "", False), ("institution", "", False),
    # Where the corpus says, it decides: a QUASI person is generalised, a DIRECT place is not.
    ("PERSON", "QUASI", False), ("LOC", "DIRECT", True), ("CODE", "NO_MASK", False),
])
def test_direct_identifiers(label, identifier_type, direct):
    assert is_direct(label, identifier_type) is direct


SHIPPED_LABELS = ["PERSON", "CODE", "LOC", "ORG", "DEM", "DATETIME", "QUANTITY", "MISC",  # TAB
                  "personal_name", "institution", "geographic", "date", "other"]  # PGV-PII


@pytest.mark.parametrize("lang", ["en", "sv"])
@pytest.mark.parametrize("label", SHIPPED_LABELS)
def test_every_shipped_label_has_its_own_example_in_both_languages(label, lang):
    example = example_for(label, lang)
    assert example.lang == lang and label.lower() in (x.lower() for x in example.labels)
    assert len(example.replacements) == 5
    # The span is cut from its sentence, so "span in sentence" could not fail; what can go wrong
    # in the data is an empty [[ ]], a replacement that repeats the span or another replacement.
    assert example.span.strip() and example.span == example.span.strip()
    replacements = [r.casefold() for r in example.replacements]
    assert example.span.casefold() not in replacements and len(set(replacements)) == len(replacements)


def test_an_unknown_label_takes_the_fallback_example():
    assert example_for("HOBBY", "sv").fallback and example_for("HOBBY", "sv").lang == "sv"
    assert sum(e.fallback for e in load_examples()) == 2  # one per language


def test_the_candidate_prompt_asks_for_n_sorted_replacements_as_a_json_schema():
    prompt = candidate_prompt("She moved to [[Paris]] in 1999.", "Paris", "LOC", "en", n=3, max_chars=40)
    assert prompt.names == ("replacement_1", "replacement_2", "replacement_3")
    assert prompt.schema["required"] == list(prompt.names) and prompt.schema["additionalProperties"] is False
    assert all(p["maxLength"] == 40 for p in prompt.schema["properties"].values())
    assert "most specific to most generic" in prompt.system and "[[London]]" in prompt.system
    # The example's answer is cut to n, in the schema's shape.
    assert '"replacement_3": "a large island nation"' in prompt.system and "replacement_4" not in prompt.system
    assert prompt.user.endswith("Original: She moved to [[Paris]] in 1999. Sorted replacements for [[Paris]]:")


@pytest.mark.parametrize("n", [1, 3, 5, 7])
def test_the_example_answer_keeps_the_order_most_specific_first_for_any_n(n):
    example = example_for("LOC", "en")
    prompt = candidate_prompt("She moved to [[Paris]].", "Paris", "LOC", "en", n=n, max_chars=40)
    answer = json.loads(re.search(r"\{.*\}$", prompt.system).group())
    assert list(answer) == list(prompt.names)
    ranks = [example.replacements.index(value) for value in answer.values()]
    assert ranks == sorted(ranks) and ranks[0] == 0  # never a more specific one after a more generic one
    assert ranks[-1] == min(n, len(example.replacements)) - 1  # padded with the most generic
