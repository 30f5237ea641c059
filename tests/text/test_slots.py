"""Sentences, windows and slots: what a generator is given."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers.corpus import document_with_mentions
from workbench.generator_contract.base import GenerationOptions, Generator, Prediction
from workbench.loaders.validate import RawSpan, build_document
from workbench.text.sentences import split_sentences
from workbench.text.slots import Gap, SlotBuilder


@pytest.mark.parametrize("lang, text, expected", [
    ("en", "Mr. J. Smith came on 1 Jan. 1997. He left.", ["Mr. J. Smith came on 1 Jan. 1997.", "He left."]),
    ("en", "See application no. 36110/97. It was lodged.", ["See application no. 36110/97.", "It was lodged."]),
    ("en", "“Why?” he asked. Nobody knew!", ["“Why?” he asked.", "Nobody knew!"]),
    ("en", "PROCEDURE\n\nThe case began.", ["PROCEDURE", "The case began."]),
    ("sv", "Hon bor t.ex. i Umeå. Han bor bl.a. i Malmö. Kl. 5 åt de.",
     ["Hon bor t.ex. i Umeå.", "Han bor bl.a. i Malmö.", "Kl. 5 åt de."]),
    ("sv", "Det var 1999. Året efter flyttade hon.", ["Det var 1999.", "Året efter flyttade hon."]),
])
def test_sentence_splitting(lang, text, expected):
    assert [text[a:b] for a, b in split_sentences(text, lang)] == expected


def make_doc(text, mentions, lang="en", doc_id="d"):
    return document_with_mentions("test", doc_id, text, [(mention, "X") for mention in mentions], lang)


DOC = make_doc("S0 Anna. S1 Bo. S2 Cecilia met Dan in Ely. S3 Frans. S4 Gus. S5 Hugo.",
               ["Anna", "Bo", "Cecilia", "Dan", "Ely", "Frans", "Gus", "Hugo"])


def test_window_is_target_sentence_plus_minus_n():
    builder = SlotBuilder(DOC, window=1)
    text = builder.slot(2).render("_")
    assert text == "S1 _. S2 _ met _ in _. S3 _."
    assert SlotBuilder(DOC, window=0).slot(2).render("_") == "S2 _ met _ in _."
    assert SlotBuilder(DOC, window=2).slot(0).render("_").startswith("S0 _. S1 _. S2")


def test_masked_mode_numbers_every_gap_and_knows_its_target():
    slot = SlotBuilder(DOC, window=1).slot(3)  # Dan
    rendered = slot.render(lambda n, gap: f"[MASK.{n}]")
    assert rendered == "S1 [MASK.1]. S2 [MASK.2] met [MASK.3] in [MASK.4]. S3 [MASK.5]."
    assert slot.target_number == 3


def test_repl_fills_only_spans_left_of_the_target_with_earlier_picks():
    picks = {0: "P0", 1: "P1", 2: "P2", 3: "P3", 4: "P4"}
    slot = SlotBuilder(DOC, window=1).slot(3, picks)
    assert slot.render("_") == "S1 P1. S2 P2 met _ in _. S3 _."
    assert slot.target_number == 1
    assert [g.span_index for g in slot.gaps] == [3, 4, 5]


def test_several_spans_in_one_sentence_share_their_window():
    builder = SlotBuilder(DOC, window=2)
    keys = {builder.slot(i).window_key for i in (2, 3, 4)}
    assert len(keys) == 1
    assert builder.slot(1).window_key not in keys


def test_a_span_across_a_sentence_boundary_merges_the_two_sentences():
    doc = make_doc("It ends here. Next starts. Final one.", ["here. Next"])
    builder = SlotBuilder(doc, window=0)
    assert builder.slot(0).render("_") == "It ends _ starts."
    assert len(builder.sentences) == 2


def test_unmasked_spans_stay_original_text_and_get_no_slot():
    raw = [RawSpan(0, 4, "PERSON"), RawSpan(14, 18, "LOC", mask=False)]
    doc = build_document("t", "d", "Anna lives in Oslo.", "en", raw)
    builder = SlotBuilder(doc)
    assert builder.slot(0).render("_") == "_ lives in Oslo."
    with pytest.raises(ValueError):
        builder.slot(1)


class SpyGenerator(Generator):
    """Records every slot it is given; answers a constant."""
    name = "spy"

    def __init__(self, options):
        super().__init__(None, options)
        self.seen = []

    def generate(self, slots):
        self.seen.extend(slots)
        return [Prediction(("Zed",)) for _ in slots]


@pytest.mark.parametrize("mode", ["maskL", "repL"])
def test_a_generator_never_receives_the_original_text_of_the_span_it_fills(tiny_corpus, store, mode):
    from workbench.generation.engine import run_generation
    from workbench.upos import get_tagger

    spy = SpyGenerator(GenerationOptions(mode=mode, window=2))
    run_generation(store, tiny_corpus, spy, get_tagger("spacy", quiet=True), progress=False, batch_size=3)
    assert len(spy.seen) == tiny_corpus.n_slots
    for slot in spy.seen:
        original = tiny_corpus.document(slot.doc_id).spans[slot.span_index].text
        # Nothing the generator can read holds the original: not the text pieces, not the gaps.
        text_pieces = " ".join(p for p in slot.pieces if isinstance(p, str))
        assert not re.search(rf"\b{re.escape(original)}\b", text_pieces)
        assert original not in repr([p for p in slot.pieces if isinstance(p, Gap)])
        assert original not in slot.render("<mask>")


words = st.text(alphabet="abcdefg ", min_size=1, max_size=8).filter(lambda s: s.strip() == s and s)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(words, st.booleans()), min_size=1, max_size=12), st.integers(0, 3))
def test_offsets_survive_a_mask_unmask_round_trip(parts, window):
    """Rendering a slot with every gap's original text gives back the window exactly."""
    text, raw = "", []
    for i, (word, is_span) in enumerate(parts):
        sep = ". " if i % 3 == 2 else " "
        if is_span:
            raw.append(RawSpan(len(text), len(text) + len(word), "X"))
        text += word + sep
    text = text.rstrip()
    if not raw:
        return
    doc = build_document("t", "d", text, "en", raw)
    builder = SlotBuilder(doc, window=window)
    for i in doc.masked_spans:
        slot = builder.slot(i)
        restored = slot.render(lambda n, gap: doc.spans[gap.span_index].text)
        assert restored in doc.text
        assert doc.spans[i].text in restored


def test_parts_is_the_one_gap_walk():
    """Text runs and repL fills are joined; masked gaps are numbered in reading order."""
    text = "Anna met Bo in Oslo and Rome."
    raw = [RawSpan(text.index(w), text.index(w) + len(w), "X") for w in ("Anna", "Bo", "Oslo", "Rome")]
    doc = build_document("t", "d", text, "en", raw)
    slot = SlotBuilder(doc).slot(2, picks={0: "Eva", 1: "Al", 3: "never: right of the target"})
    parts = slot.parts(lambda number, gap: (number, gap.span_index))
    assert parts == ["Eva met Al in ", (1, 2), " and ", (2, 3), "."]
    assert slot.render("_") == "Eva met Al in _ and _."
    assert slot.target_number == 1


def _counted(op: str):
    def compare(self, other):
        CountingInt.comparisons += 1
        return getattr(int, op)(self, other)
    return compare


class CountingInt(int):
    """An offset that counts every comparison made with it: cost measured in operations."""
    comparisons = 0
    __lt__, __le__, __gt__, __ge__ = (_counted(op) for op in ("__lt__", "__le__", "__gt__", "__ge__"))


def _many_spans_document(n: int):
    """One document, one one-character span per short sentence (issue 10 #19's shape)."""
    from workbench.data_model import Document, Span
    text = "".join(f"Go {'xyz'[i % 3]} now. " for i in range(n)).rstrip()
    spans = tuple(Span(CountingInt(10 * i + 3), CountingInt(10 * i + 4), text[10 * i + 3], "X", f"e{i}")
                  for i in range(n))
    return Document("d", text, "en", spans)


@pytest.mark.parametrize("mode", ["maskL", "repL"])
def test_slot_building_is_linear_in_the_spans(mode):
    """Building every slot of a document costs O(spans × window), not O(spans²): counted
    in comparisons of offsets, which grow 10× for 10× the spans (100× when quadratic)."""
    counts = []
    for n in (300, 3000):
        doc = _many_spans_document(n)
        CountingInt.comparisons = 0
        builder = SlotBuilder(doc, window=2)
        picks = {i: "p" for i in range(n)} if mode == "repL" else None
        slots = [builder.slot(i, picks) for i in range(n)]
        counts.append(CountingInt.comparisons)
        assert all(len(s.gaps) <= 5 for s in slots)  # ±2 sentences of one span each
    assert counts[1] < 20 * counts[0]


def test_repl_schedule_is_linear_in_spans():
    """repL works step by step (every document's k-th span, then k+1-th); one long document
    among many short ones must not make every step scan every document (issue 10 #19)."""
    from workbench.data_model import Corpus
    from workbench.generation.engine import _schedule

    class CountingDocuments(tuple):
        touched = 0

        def __getitem__(self, i):
            CountingDocuments.touched += 1
            return tuple.__getitem__(self, i)

        def __iter__(self):
            for d in tuple.__iter__(self):
                CountingDocuments.touched += 1
                yield d

    counts = []
    for n in (200, 2000):
        long_doc = _many_spans_document(n)
        tiny = [build_document("t", f"t{i}", "Go x now.", "en", [RawSpan(3, 4, "X")]) for i in range(n)]
        corpus = Corpus("c", "c", (long_doc, *tiny))
        object.__setattr__(corpus, "documents", CountingDocuments(corpus.documents))
        CountingDocuments.touched = 0
        work = [w for batch in _schedule(corpus, set(), "repL", 32) for w in batch]
        counts.append(CountingDocuments.touched)
        assert len(work) == 2 * n and [w.span for w in work if w.doc == 0] == list(range(n))
    assert counts[1] < 20 * counts[0]  # 10x the spans: ~10x the work (100x when quadratic)
