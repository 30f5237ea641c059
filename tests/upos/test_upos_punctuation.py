"""No punctuation mark as a pseudonym (issue 24, item 3).

The UPOS of a span is its right-most word's, not its right-most token's: `Unheard Voice
(Ohörd röst)` is not PUNCT. The baselines never draw a punctuation form, and the UPOS filter
never accepts a candidate made only of punctuation.
"""

from __future__ import annotations

import pytest

from workbench.adapters.baselines.random_baseline import RandomBaseline
from workbench.adapters.baselines.upos_baseline import UposBaseline
from workbench.generation.pseudonym_choice import PUNCTUATION_ONLY, SelectionInput, choose_all
from workbench.generator_contract.base import FAILED, GenerationOptions, Prediction
from workbench.loaders.conllu import load_vocabulary
from workbench.loaders.shipped import vocabulary_path
from workbench.text.pud_vocabulary import VOCABULARY
from workbench.text.slots import SlotBuilder
from workbench.upos import is_punctuation_only, right_most_upos
from workbench.upos.spacy_backend import SpacyTagger

# "Unheard Voice (Ohörd röst)" as the Swedish tagger tokenises it, at its offsets.
TITLE = [(0, 7, "PROPN"), (8, 13, "NOUN"), (14, 15, "PUNCT"), (15, 20, "PROPN"), (21, 25, "NOUN"), (25, 26, "PUNCT")]


@pytest.mark.parametrize("tokens, start, end, expected", [
    (TITLE, 0, 26, "NOUN"),  # the 003 rule took ")": PUNCT
    (TITLE, 14, 26, "NOUN"),  # "(Ohörd röst)"
    (TITLE, 25, 26, "PUNCT"),  # only punctuation: the right-most token, as before
    (TITLE, 13, 15, "PUNCT"),  # " (": the walk left stops at the range's start, never reaches "Voice"
    ([(0, 2, "NUM"), (3, 4, "SYM")], 0, 4, "NUM"),  # "50 %": SYM is no word either
    ([(0, 4, "PROPN"), (4, 5, "PUNCT"), (6, 10, "NOUN")], 5, 6, None),  # white space only
])
def test_span_upos_is_its_right_most_word(tokens, start, end, expected):
    assert right_most_upos(tokens, start, end) == expected


def test_unheard_voice_takes_the_tag_of_rost_with_the_real_tagger():
    # The PGV-PII SV sentence (gv-eng-swe-66_SWE, span 16) that gave the pseudonym ” before.
    text = "Bloggen Unheard Voice (Ohörd röst) har lagt upp översättningar från intervjun."
    span = "Unheard Voice (Ohörd röst)"
    start = text.index(span)
    rost = text.index("röst")
    tagger = SpacyTagger()
    whole, word = tagger.tag_ranges("sv", [(text, start, start + len(span)), (text, rost, rost + 4)])
    assert word not in ("PUNCT", "SYM")
    assert whole == word


def test_the_tagger_name_records_the_span_rule():
    # Runs and the originals' stored tags are keyed by the tagger name: a run made under the
    # right-most-token rule is never resumed, nor its tags reused, under the new one.
    tagger = SpacyTagger()
    assert tagger.name == tagger.backend + ",span=last-word"
    assert tagger.name.split(":", 1)[0] == "spacy"  # metric contexts pick the family by it


@pytest.mark.parametrize("text, expected", [
    ("”", True), (",", True), ("(…)", True), ("% §", True), ("&", True),
    ("", False), (" ", False), ("U.S.", False), ("'s", False), ("36110/97", False), ("Anna", False),
])
def test_punctuation_only(text, expected):
    assert is_punctuation_only(text) is expected


def _pud_punctuation(lang: str) -> set[str]:
    return {e.form for e in load_vocabulary(vocabulary_path(lang)) if e.upos in ("PUNCT", "SYM")}


def _slots(corpus, upos_of):
    """Every span of the corpus, with the UPOS upos_of(doc, i) as the original's."""
    return [SlotBuilder(d, [upos_of(d, i) for i in range(len(d.spans))], 0).slot(i, None)
            for d in corpus.documents for i in range(len(d.spans))]


@pytest.mark.parametrize("generator", [RandomBaseline, UposBaseline])
def test_baselines_never_draw_punctuation(tiny_corpus, generator):
    # 21 spans x 60 seeds x 10 candidates: 12,600 draws, for UPOS the spans' own and PUNCT/SYM,
    # which PUD has only punctuation for. Before, about 1 draw in 250 was punctuation.
    kinds = ["PUNCT", "SYM", "PROPN", None]
    slots = _slots(tiny_corpus, lambda d, i: kinds[i % len(kinds)])
    punctuation = _pud_punctuation("en") | _pud_punctuation("sv")
    drawn, inventory = [], None
    for seed in range(60):
        baseline = generator(options=GenerationOptions(seed=seed, top_k=10))
        if inventory is None:
            baseline.load()
            inventory = baseline.inventory
        baseline.inventory = inventory  # PUD is read once, not once per seed
        for prediction in baseline.generate(slots):
            drawn += prediction.candidates
    assert len(drawn) == 21 * 60 * 10
    assert not [c for c in drawn if is_punctuation_only(c) or c in punctuation]


@pytest.mark.parametrize("generator", [RandomBaseline, UposBaseline])
def test_baselines_record_their_vocabulary_in_the_signature(generator):
    # Their draws changed with the vocabulary: the run id must change with it.
    assert generator().signature_config() == {"vocabulary": VOCABULARY}


def _choose(tiny_corpus, candidates, known_upos, *, upos_filter=True, wanted="PUNCT"):
    doc = tiny_corpus.documents[0]
    item = SelectionInput(doc, 1, (0, len(doc.text)), wanted,
                          Prediction(tuple(candidates), candidate_upos=tuple(known_upos)))
    return choose_all([item], upos_filter=upos_filter, leak_guard=False, tagger=None)[0]


def test_the_upos_filter_never_accepts_punctuation(tiny_corpus):
    # The generator says ” is PUNCT, as wanted: before, the filter took it.
    choice = _choose(tiny_corpus, ["”", "Bergen", ","], ["PUNCT", "PROPN", "PUNCT"])
    assert (choice.pseudonym, choice.rank, choice.upos_fallback) == ("Bergen", 1, True)
    matching = _choose(tiny_corpus, [",", "Bergen", "Lund"], ["PUNCT", "PROPN", "PROPN"], wanted="PROPN")
    assert (matching.pseudonym, matching.rank, matching.upos_fallback) == ("Bergen", 1, False)


def test_only_punctuation_candidates_fail_under_the_filter(tiny_corpus):
    choice = _choose(tiny_corpus, ["”", "(", "%"], ["PUNCT", "PUNCT", "SYM"])
    assert choice.failed and choice.pseudonym == FAILED and choice.note == PUNCTUATION_ONLY


def test_without_the_filter_the_top_1_stays_as_003_has_it(tiny_corpus):
    choice = _choose(tiny_corpus, ["”", "Bergen"], ["PUNCT", "PROPN"], upos_filter=False)
    assert (choice.pseudonym, choice.rank) == ("”", 0)
