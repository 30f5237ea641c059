"""ROUGE tokenisation keeps Swedish letters; the summarisers behave."""

from __future__ import annotations

import pytest

from workbench.metrics.backends.summarisers import ExtractiveSummariser, make_summariser
from workbench.metrics.rouge import UnicodeTokenizer, make_scorer, rouge_pair


def test_tokenizer_keeps_swedish_letters():
    assert UnicodeTokenizer().tokenize("Göteborg är en STAD på Åland, Malmö") == \
        ["göteborg", "är", "en", "stad", "på", "åland", "malmö"]


@pytest.mark.parametrize("a, b, expected", [
    ("öl", "ål", 0.0),  # rouge-score's default tokenizer reduces both to "l" and scores 1.0
    ("Malmö är stor", "Malmo ar stor", 1 / 3),  # only "stor" is shared
    ("Göteborg", "Göteborg", 1.0),
])
def test_rouge_distinguishes_swedish_words(a, b, expected):
    assert rouge_pair(make_scorer(), a, b)["rouge1"] == pytest.approx(expected)


def test_default_rouge_tokenizer_would_delete_them():
    # Why UnicodeTokenizer exists: the library default drops å, ä, ö.
    from rouge_score import rouge_scorer
    default = rouge_scorer.RougeScorer(["rouge1"])
    assert default.score("öl", "ål")["rouge1"].fmeasure == 1.0


def test_extractive_summary_is_sentences_of_the_text_in_order():
    text = ("Anna Berg was born in Oslo. Oslo is a city in Norway. The weather was fine. "
            "Anna Berg moved to Oslo in 1999. Nothing else happened.")
    summary = ExtractiveSummariser(2).summarise([text], "en")[0]
    lines = summary.split("\n")
    assert len(lines) == 2 and all(line in text for line in lines)
    assert text.index(lines[0]) < text.index(lines[1])
    # SumBasic favours the sentences made of the most frequent content words (anna, berg, oslo).
    assert "Oslo" in lines[0]


def test_hf_summariser_fails_with_a_clear_message(tmp_path):
    from workbench.infra.errors import WorkbenchError
    summariser = make_summariser(str(tmp_path / "no-such-model"))
    with pytest.raises(WorkbenchError, match="cannot load the summariser"):
        summariser.summarise(["Some text."], "en")
