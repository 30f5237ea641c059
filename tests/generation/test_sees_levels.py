"""What a generator may see of the span it fills (issue 13 item 2): context < shape < original.

The engine alone reveals a span's shape or text to a slot, at the level the generator
declares for the span's label; a context-level generator gets nothing of any original.
"""

from __future__ import annotations

import dataclasses

import pytest

from tests.helpers.corpus import document_with_mentions
from tests.metrics.conftest import WordListTagger
from workbench.data_model import Corpus
from workbench.generation.engine import run_generation
from workbench.generator_contract import GenerationOptions, Prediction, create_generator
from workbench.generator_contract.base import SEES_LEVELS, Generator
from workbench.generator_contract.registry import GENERATORS
from workbench.text.shape import shape_of
from workbench.text.slots import Gap, Slot, SlotBuilder, reveal

# Originals that occur nowhere else in the texts, so finding one in a slot can only mean it leaked.
DOCS = (
    ("en-x", "en", "Zorbling Quaxfeld met Vimtrella in Plonkhaven on 17/03-2011. Later Zorbling Quaxfeld "
                   "left Plonkhaven with code QX-88213-b.",
     [("Zorbling Quaxfeld", "PERSON"), ("Vimtrella", "PERSON"), ("Plonkhaven", "LOC"), ("17/03-2011", "DATETIME"),
      ("Zorbling Quaxfeld", "PERSON"), ("Plonkhaven", "LOC"), ("QX-88213-b", "CODE")]),
    ("sv-x", "sv", "Grünfjällsberg bor i Ystrakvarn sedan 1987. Hon heter Grünfjällsberg.",
     [("Grünfjällsberg", "PERSON"), ("Ystrakvarn", "LOC"), ("1987", "DATETIME"), ("Grünfjällsberg", "PERSON")]),
)


def distinctive_corpus() -> Corpus:
    documents = []
    for doc_id, lang, text, mentions in DOCS:
        documents.append(document_with_mentions("sees", doc_id, text, mentions, lang))
    return Corpus("sees", "tests/generation/test_sees_levels.py", tuple(documents))


def strings_in(value) -> list[str]:
    """Every string a generator can read from a slot: each field, the pieces, each gap's fields."""
    if isinstance(value, str):
        return [value]
    if dataclasses.is_dataclass(value):
        return [s for f in dataclasses.fields(value) for s in strings_in(getattr(value, f.name))]
    if isinstance(value, (tuple, list)):
        return [s for v in value for s in strings_in(v)]
    return []


def spy_class(cls: type[Generator], real: bool):
    """The registered generator's class with generate() recording its slots: the same
    declared levels (sees, sees_by_label, sees_for), no model loaded or read unless `real`."""
    class Spy(cls):
        seen: list

        def load_for(self, langs):
            self.seen = []
            if real:
                super().load_for(langs)

        def generate(self, slots):
            self.seen.extend(slots)
            return super().generate(slots) if real else [Prediction(("Pseudo",)) for _ in slots]

        def model_id(self):
            # MTC's id is its checkpoint's fingerprint: a spy that loads nothing needs no checkpoint built.
            return super().model_id() if real else f"spy:{cls.__name__}"
    Spy.__name__ = f"Spy{cls.__name__}"
    return Spy


def run_spy(store, corpus, generator) -> list[Slot]:
    run_generation(store, corpus, generator, WordListTagger(), progress=False, batch_size=3)
    assert len(generator.seen) == corpus.n_slots
    return generator.seen


def assert_sees_nothing_of_any_original(corpus, slots):
    for slot in slots:
        assert slot.shape is None and slot.original is None and slot.sees == "context"
        doc = corpus.document(slot.doc_id)
        readable = strings_in(slot) + [slot.render("<mask>")]
        for span in doc.spans:  # the target's original, and every other span's
            assert not any(span.text in s for s in readable), (slot.doc_id, slot.span_index, span.text)


@pytest.mark.parametrize("mode", ["maskL", "repL"])
@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_every_context_generator_receives_nothing_of_any_original(store, name, mode):
    """Every registered generator declaring `context` (all of them today), through the engine:
    the slots it is handed hold no original text in any field, target's or other spans'."""
    corpus = distinctive_corpus()
    cls = type(create_generator(name))
    generator = spy_class(cls, real=False)(None, GenerationOptions(mode=mode, window=2))
    if generator.sees_summary() != "context":
        pytest.skip(f"{name} declares {generator.sees_summary()}: tested by its own tests")
    assert all(generator.sees_for(s.label) == "context" for d in corpus.documents for s in d.spans)
    assert_sees_nothing_of_any_original(corpus, run_spy(store, corpus, generator))


@pytest.mark.parametrize("name", ["random", "upos"])
def test_real_baselines_generate_from_context_only(store, name):
    """The same with the real generators answering (their picks fill repL windows)."""
    corpus = distinctive_corpus()
    cls = type(create_generator(name))
    generator = spy_class(cls, real=True)(None, GenerationOptions(mode="repL"))
    slots = run_spy(store, corpus, generator)
    assert any(isinstance(p, Gap) and p.fill for s in slots for p in s.pieces)  # repL fills were seen
    assert_sees_nothing_of_any_original(corpus, slots)


class LevelSpy(Generator):
    """A test generator at a declared level, optionally per label; records what it is given."""
    name = "level-spy"

    def __init__(self, options=None, sees="context", by_label=None):
        super().__init__(None, options)
        self.sees = sees
        self.by_label = by_label or {}
        self.seen = []

    def sees_by_label(self):
        return self.by_label

    def generate(self, slots):
        self.seen.extend(slots)
        return [Prediction(("Pseudo",)) for _ in slots]


def _target(corpus, slot):
    return corpus.document(slot.doc_id).spans[slot.span_index].text


@pytest.mark.parametrize("mode", ["maskL", "repL"])
def test_a_shape_generator_gets_the_shape_and_never_the_original(store, mode):
    corpus = distinctive_corpus()
    slots = run_spy(store, corpus, LevelSpy(GenerationOptions(mode=mode), sees="shape"))
    for slot in slots:
        original = _target(corpus, slot)
        assert slot.sees == "shape" and slot.original is None
        assert slot.shape == shape_of(original) and len(slot.shape) == len(original)
        doc = corpus.document(slot.doc_id)
        readable = strings_in(slot) + [slot.render("<mask>")]
        for span in doc.spans:
            assert not any(span.text in s for s in readable), (slot.doc_id, slot.span_index, span.text)
    assert {s.shape for s in slots} >= {"99/99-9999", "AA-99999-a", "Aaaaaaaa Aaaaaaaa"}


def test_an_original_generator_gets_its_own_original_and_no_other(store):
    corpus = distinctive_corpus()
    slots = run_spy(store, corpus, LevelSpy(GenerationOptions(mode="repL"), sees="original"))
    for slot in slots:
        original = _target(corpus, slot)
        assert (slot.sees, slot.original, slot.shape) == ("original", original, shape_of(original))
        # Other spans' originals are still nowhere (repL fills are this run's picks).
        others = {s.text for s in corpus.document(slot.doc_id).spans} - {original}
        readable = strings_in(dataclasses.replace(slot, original=None, shape=None))
        assert not any(o in s for o in others for s in readable)


def test_levels_per_label_reveal_per_slot_and_are_in_the_signature(store):
    corpus = distinctive_corpus()
    gen = LevelSpy(sees="shape", by_label={"DATETIME": "original", "LOC": "context"})
    assert gen.sees_summary() == "shape;DATETIME=original;LOC=context"
    slots = run_spy(store, corpus, gen)
    expected = {"DATETIME": "original", "LOC": "context", "PERSON": "shape", "CODE": "shape"}
    assert {s.label: s.sees for s in slots} == expected
    [run] = store.runs()
    assert run.sees == "shape;DATETIME=original;LOC=context"
    assert "|sees=shape;DATETIME=original;LOC=context|" in run.signature
    assert run.signature_record.render() == run.signature


def test_the_level_changes_the_run_id_and_context_keeps_the_old_one(store):
    corpus = distinctive_corpus()
    ids = {}
    for level in SEES_LEVELS:
        ids[level] = run_generation(store, corpus, LevelSpy(sees=level), WordListTagger(), progress=False).run_id
    assert len(set(ids.values())) == 3
    context_run = store.get_run(ids["context"])
    assert "sees=" not in context_run.signature  # rendered as before the levels existed
    assert context_run.sees_level == "context"


def test_a_generator_that_reveals_more_than_it_declares_is_stopped_before_anything_is_written(store):
    class Sneaky(LevelSpy):
        def sees_for(self, label):  # overrides the level but not the declaration the signature records
            return "original"

    with pytest.raises(RuntimeError, match="declare per-label levels in sees_by_label"):
        run_generation(store, distinctive_corpus(), Sneaky(), WordListTagger(), progress=False)
    assert store.runs() == []


def test_an_unknown_level_is_refused():
    with pytest.raises(ValueError, match="unknown level 'everything'"):
        LevelSpy(sees="everything").sees_summary()
    slot = SlotBuilder(distinctive_corpus().documents[0]).slot(0)
    with pytest.raises(ValueError, match="unknown level"):
        reveal(slot, "everything", "Zorbling Quaxfeld")


def test_a_generator_answering_an_unknown_level_is_told_so_before_anything_is_written(store):
    class Confused(LevelSpy):
        def sees_for(self, label):  # a level that does not exist, not one left undeclared
            return "everything"

    with pytest.raises(ValueError, match=r"generator 'level-spy': sees_for\('\w+'\): unknown level 'everything'"):
        run_generation(store, distinctive_corpus(), Confused(), WordListTagger(), progress=False)
    assert store.runs() == []


def test_a_slot_refuses_an_original_without_its_shape():
    slot = SlotBuilder(distinctive_corpus().documents[0]).slot(0)
    with pytest.raises(ValueError, match="comes with its shape"):
        dataclasses.replace(slot, original="Zorbling Quaxfeld")
    with pytest.raises(ValueError, match="not as long as the span"):
        dataclasses.replace(slot, shape="Aa")
    revealed = reveal(slot, "original", "Zorbling Quaxfeld")
    assert reveal(revealed, "context", "Zorbling Quaxfeld") == slot  # a level can be taken back


@pytest.mark.parametrize("text, shape", [
    ("17/03-2011", "99/99-9999"),
    ("QX-88213-b", "AA-99999-a"),
    ("Grünfjällsberg", "Aaaaaaaaaaaaaa"),
    ("+46 (0)8 123 45", "+99 (9)9 999 99"),
    ("٣٤٥ ３", "999 9"),  # any script's decimal digits are digits
    ("東京 Ωmega", "aa Aaaaa"),  # caseless letters are letters
    # Combining marks are part of a letter: NFD "Åsa" (A + ring) and Devanagari vowel signs
    # (Mc, Mn) would name the letter if kept.
    ("A\u030asa Ande\u0301n", "Aaaa Aaaaaa"),
    ("\u0915\u093f\u0924\u093e\u092c \u0915\u0941", "aaaaa aa"),
    ("", ""),
])
def test_shape_keeps_digits_separators_and_length(text, shape):
    assert shape_of(text) == shape
    assert shape_of(shape) == shape  # idempotent
    assert len(shape_of(text)) == len(text)


def test_reports_and_the_runs_list_show_the_level(store):
    from tests.metrics.conftest import make_context
    from workbench.metrics import compute_metrics, metric_frame
    from workbench.reports.tables import Column, TableSpec, cells, to_csv_frame
    from workbench.views.runs import run_lines

    corpus = distinctive_corpus()
    runs = {level: run_generation(store, corpus, LevelSpy(sees=level, by_label={"CODE": "original"}),
                                  WordListTagger(), progress=False).run_id for level in ("context", "shape")}
    table = compute_metrics(metric_frame(store, list(runs.values())), make_context(), families=("entities",))
    spec = TableSpec("entities", "Entities", (Column("consistency", "consist."),), originals=True)
    headers, rows = cells(table, spec)
    sees = dict(zip([r[headers.index("Id")] for r in rows], [r[headers.index("Sees")] for r in rows]))
    assert sees == {"": "", runs["context"][:8]: "context;CODE=original", runs["shape"][:8]: "shape;CODE=original"}
    assert set(to_csv_frame(table, spec)["sees"]) == {"", "context;CODE=original", "shape;CODE=original"}
    lines = {line.split()[0]: line for line in run_lines(store)}
    assert lines[runs["shape"]].endswith("sees=shape;CODE=original")


def test_exports_keep_the_earlier_columns_in_place_and_add_sees_and_consistent_at_the_end(store, tmp_path):
    import pandas as pd

    from workbench.exchange.exporters import export_run
    # The columns of `export --format csv` before issue 13, in order: a reader indexing them
    # by position must find them where they were.
    before = ["run_id", "signature", "generator", "model", "mode", "upos_filter", "corpus", "corpus_hash", "source",
              "tagger", "lang", "doc_id", "span_index", "start", "end", "label", "entity_id", "original",
              "original_upos", "pseudonym", "rank", "pick_upos", "n_candidates", "failed", "note", "seconds",
              "requests"]
    run = run_generation(store, distinctive_corpus(), LevelSpy(sees="shape"), WordListTagger(), progress=False)
    frame = pd.read_csv(export_run(store, run.run_id, "csv", tmp_path / "run.csv", with_originals=True))
    # Issue 15 appended the run's name and remaining options after them, then the UPOS fallback,
    # and issue 37 whether the run chose with the morphology filter.
    after = ["sees", "consistent", "name", "window", "seed", "top_k", "leak_guard", "dtype", "config", "upos_fallback",
             "morph_filter"]
    assert list(frame.columns) == before + after
    assert set(frame["sees"]) == {"shape"} and set(frame["consistent"]) == {"off"}
    # The shareable default (issue 24) leaves out only the `original` column: every other
    # column keeps its order.
    shareable = pd.read_csv(export_run(store, run.run_id, "csv", tmp_path / "shared.csv"))
    assert list(shareable.columns) == [c for c in before if c != "original"] + after
