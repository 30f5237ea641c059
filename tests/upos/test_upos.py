"""UPOS tagging: the right-most-token rule, the spaCy backend, the cache, the stanza path."""

from __future__ import annotations

import pytest

from workbench.infra.errors import WorkbenchError
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


def test_many_ranges_in_one_text_tag_and_hash_it_once(monkeypatch):
    """A document with many spans is one text to the tagger, not one per span (issue 10 #19)."""
    from workbench.upos.base import TagCache, Tagger

    class Fake(Tagger):
        name = "fake"

        def __init__(self):
            super().__init__(None)
            self.texts = []

        def _tag_texts(self, lang, texts):
            self.texts += texts
            return [[(i, i + 1, "X") for i in range(0, len(t), 2)] for t in texts]

    keys = []
    real_key = TagCache.key
    monkeypatch.setattr(TagCache, "key", staticmethod(lambda *a: keys.append(1) or real_key(*a)))
    text = "a " * 5000
    tagger = Fake()
    got = tagger.tag_ranges("en", [(text, i, i + 1) for i in range(0, len(text), 2)])
    assert got == ["X"] * 5000
    assert len(tagger.texts) == 1 and len(keys) <= 2


def test_right_most_upos_bisects():
    tokens = [(i, i + 1, "X") for i in range(0, 10_000, 2)]
    starts = [a for a, _, _ in tokens]
    assert right_most_upos(tokens, 5000, 5001, starts) == "X"
    assert right_most_upos(tokens, 5001, 5002, starts) is None  # white space between tokens
    assert right_most_upos(tokens, 0, 10_000, starts) == "X"


def test_a_text_over_spacys_max_length_is_tagged_in_pieces():
    """1,100,000 characters (spaCy's limit is 1,000,000, error E088): tagged in sentence
    pieces whose token offsets point into the whole text. A blank tokenizer keeps it fast."""
    spacy = pytest.importorskip("spacy")
    tagger = SpacyTagger(cache_path=None)
    tagger._nlp["en"] = spacy.blank("en")
    sentence = "Anna Berg moved to Oslo in 1999. "
    text = sentence * (1_100_000 // len(sentence) + 1)
    assert len(text) > tagger._nlp["en"].max_length
    tokens = tagger.tag_texts("en", [text])[0]
    assert len(tokens) == 8 * text.count(sentence)
    assert all(text[a:b] in sentence for a, b, _ in tokens)
    assert text[tokens[-1][0]:tokens[-1][1]] == "." and tokens[-1][1] == len(text.rstrip())


def test_long_text_tags_equal_sentence_by_sentence_tags(monkeypatch):
    """The real tagger over pieces (max_length lowered to make the text 'long') gives each
    sentence the tags it gets alone."""
    tagger = SpacyTagger(cache_path=None)
    nlp = tagger._pipeline("en")
    monkeypatch.setattr(nlp, "max_length", 200)
    monkeypatch.setattr("workbench.upos.spacy_backend._CHARS_PER_BATCH", 100)
    sentences = ["The court met in Oslo.", "Anna Berg was born in 1950.", "He left for Rome."] * 6
    text = " ".join(sentences)
    whole = tagger._tag_texts("en", [text])[0]
    alone = [u for s in sentences for _, _, u in tagger._tag_texts("en", [s])[0]]
    assert [u for _, _, u in whole] == alone
    assert [text[a:b] for a, b, _ in whole][:6] == ["The", "court", "met", "in", "Oslo", "."]
