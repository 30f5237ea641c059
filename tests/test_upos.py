"""UPOS tagging: the right-most-token rule, the spaCy backend, the cache, the stanza path."""

from __future__ import annotations

import pytest

from workbench.errors import WorkbenchError
from workbench.upos import get_tagger, right_most_upos
from workbench.upos.spacy_backend import SpacyTagger


@pytest.mark.parametrize("start, end, expected", [
    (0, 3, "DET"),       # "The"
    (4, 19, "PROPN"),    # "European Court" → its right-most token
    (4, 12, "ADJ"),      # "European"
    (5, 9, "ADJ"),       # a range inside a token takes that token
    (19, 20, None),      # only white space: no token
])
def test_right_most_token_rule(start, end, expected):
    tokens = [(0, 3, "DET"), (4, 12, "ADJ"), (13, 18, "PROPN")]
    assert right_most_upos(tokens, start, end) == expected


def test_spacy_tags_english_and_swedish_in_context(tmp_path):
    tagger = SpacyTagger(cache_path=tmp_path / "tags.sqlite")
    en = "The applicant, Mr Jan Kowalski, was born in Warsaw in 1950."
    sv = "Hon arbetar som läkare i Göteborg sedan 1999."
    got_en = tagger.tag_ranges("en", [(en, en.index("Mr Jan Kowalski"), en.index(",", 15)),
                                      (en, en.index("1950"), en.index("1950") + 4),
                                      (en, en.index("born"), en.index("born") + 4)])
    got_sv = tagger.tag_ranges("sv", [(sv, sv.index("läkare"), sv.index("läkare") + 6),
                                      (sv, sv.index("Göteborg"), sv.index("Göteborg") + 8)])
    assert got_en == ["PROPN", "NUM", "VERB"]
    assert got_sv == ["NOUN", "PROPN"]


def test_tags_are_cached_across_instances(tmp_path, monkeypatch):
    text = "Anna lives in Oslo."
    first = SpacyTagger(cache_path=tmp_path / "tags.sqlite")
    expected = first.tag_ranges("en", [(text, 14, 18)])
    second = SpacyTagger(cache_path=tmp_path / "tags.sqlite")
    monkeypatch.setattr(second, "_tag_texts", lambda lang, texts: pytest.fail("the cache was not used"))
    assert second.tag_ranges("en", [(text, 14, 18)]) == expected == ["PROPN"]


def test_missing_spacy_model_is_named(tmp_path):
    tagger = SpacyTagger(models={"en": tmp_path / "nowhere"}, cache_path=None)
    with pytest.raises(WorkbenchError, match="no spaCy UPOS model for 'en'"):
        tagger.tag_ranges("en", [("x", 0, 1)])


def test_auto_falls_back_to_spacy_and_says_so(capsys):
    from workbench.upos.stanza_backend import stanza_available
    if stanza_available("en") and stanza_available("sv"):
        pytest.skip("stanza models are installed on this machine")
    tagger = get_tagger("auto")
    assert tagger.name.startswith("spacy:")
    assert "using the offline spaCy UD taggers" in capsys.readouterr().err


def test_stanza_without_models_fails_with_instructions():
    from workbench.upos.stanza_backend import StanzaTagger, stanza_available
    if stanza_available("en"):
        pytest.skip("stanza models are installed on this machine")
    with pytest.raises(WorkbenchError, match="stanza"):
        StanzaTagger(cache_path=None).tag_ranges("en", [("Anna lives in Oslo.", 0, 4)])
