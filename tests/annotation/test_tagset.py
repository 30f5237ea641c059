"""The shipped tagset is 003's Table 1 in Appendix C's precedence order."""

from __future__ import annotations

import json

import pytest

from workbench.annotation.tagset import DEFAULT_TAGSET, GUIDELINES, load_tagset
from workbench.infra.errors import WorkbenchError

# 003 Table 1 (tag → error source), and Appendix C's order of precedence.
TABLE_1 = {
    "NO_ERROR": "None (acceptable pseudonym)",
    "OVERLAP": "Partial or complete PII leakage",
    "GRAMMAR": "Sentence rendered ungrammatical",
    "POS": "Part of speech",
    "STRUCTURAL": "Punctuation, word segmentation, or replacement of long spans",
    "SEM:CATEGORY": "Semantic category",
    "SEM:CONTRADICTORY": "Contradicts established narrative or common knowledge",
    "SEM:MERGED-ENTITY": "Collapses two original entities",
    "FAILED": "Qwen model failure",
}
APPENDIX_C = ["NO_ERROR", "FAILED", "OVERLAP", "GRAMMAR", "POS", "STRUCTURAL", "SEM:CATEGORY",
              "SEM:CONTRADICTORY", "SEM:MERGED-ENTITY"]


def test_nine_tags_of_table_1_in_appendix_c_order():
    tagset = load_tagset()
    assert list(tagset.names) == APPENDIX_C
    # Table 1's words, except that FAILED is no longer Qwen's alone (it keeps them in brackets)
    assert {t.tag: t.source for t in tagset.tags} == {**TABLE_1, "FAILED": "Generator failure (Table 1: Qwen model "
                                                                           "failure)"}
    assert [t.key for t in tagset.tags] == [str(k) for k in range(1, 10)]
    assert all(t.guidance and t.color.startswith("#") and len(t.color) == 7 for t in tagset.tags)


@pytest.mark.parametrize("applicable, expected", [
    (["SEM:CATEGORY", "POS"], "POS"),  # Appendix C: wrong POS and semantically far → POS only
    (["SEM:MERGED-ENTITY", "OVERLAP", "GRAMMAR"], "OVERLAP"),
    (["STRUCTURAL"], "STRUCTURAL"),
    (["SEM:CONTRADICTORY", "FAILED"], "FAILED"),
])
def test_precedence_resolves_to_the_first_applicable(applicable, expected):
    assert load_tagset().resolve(applicable) == expected


def test_keys_and_unknown_tags():
    tagset = load_tagset()
    assert tagset.by_key("3").tag == "OVERLAP"
    assert tagset.by_key("0") is None
    with pytest.raises(WorkbenchError, match="unknown tag 'SEMANTIC'"):
        tagset.get("SEMANTIC")


def test_guidelines_list_every_tag_in_precedence_order():
    text = GUIDELINES.read_text(encoding="utf-8")
    positions = [text.index(f"**{tag}**") for tag in APPENDIX_C]
    assert positions == sorted(positions)


def test_failed_guidance_speaks_of_any_generator():
    # Every generator can leave a span FAILED (a timeout, no usable candidate, the leak guard),
    # not only an LLM: the guidance an annotator reads must not restrict the tag to Qwen or LLMs.
    failed = load_tagset().get("FAILED")
    guideline = GUIDELINES.read_text(encoding="utf-8").split("**FAILED**")[1].split("\n3. ")[0]
    for text in (failed.guidance, guideline):
        assert "any generator" in text.lower(), text
        assert "only for llm" not in text.lower() and "leak guard" in text, text
    assert failed.source.startswith("Generator failure")


def test_broken_tagset_file_is_named(tmp_path):
    bad = tmp_path / "tags.json"
    data = json.loads(DEFAULT_TAGSET.read_text())
    data["tags"][1]["key"] = "1"  # duplicate key
    bad.write_text(json.dumps(data))
    with pytest.raises(WorkbenchError, match="tags.json.*unique"):
        load_tagset(bad)
    bad.write_text("{not json")
    with pytest.raises(WorkbenchError, match="tags.json"):
        load_tagset(bad)
