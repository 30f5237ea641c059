"""Entity-consistent generation, `--consistent document|corpus` (issue 13 item 1)."""

from __future__ import annotations

import random

import pytest

from tests.helpers.corpus import document_with_mentions
from tests.metrics.conftest import WordListTagger
from workbench.data_model import Corpus
from workbench.generation.consistency import entity_keys, is_reused, reused_note
from workbench.generation.engine import run_generation
from workbench.generator_contract import FAILED, GenerationOptions, Prediction, create_generator
from workbench.generator_contract.base import Generator
from workbench.infra.errors import WorkbenchError
from workbench.loaders.validate import RawSpan, build_document
from workbench.store import RunStore
from workbench.text.slots import Gap


def make_corpus() -> Corpus:
    """Entities mentioned several times, across sentences and documents. In "tab-1" the corpus's
    own ids make "Anna Berg" and "Ms Berg" one entity (as TAB's entity ids do); elsewhere the
    grouping rule (same label, same text) applies."""
    def doc(doc_id, lang, text, mentions):  # a third item is the corpus's own entity id
        with_ids = [(mention, label, {"entity_id": f"{doc_id}|{entity[0]}" if entity else None})
                    for mention, label, *entity in mentions]
        return document_with_mentions("consistent", doc_id, text, with_ids, lang)

    return Corpus("consistent", "tests/generation/test_consistent.py", (
        doc("tab-1", "en", "Anna Berg sued Nordbank. Ms Berg lives in Oslo. Nordbank denied it. Later Ms Berg won "
                           "in Oslo.",
            [("Anna Berg", "PERSON", "E1"), ("Nordbank", "ORG", "E2"), ("Ms Berg", "PERSON", "E1"),
             ("Oslo", "LOC", "E3"), ("Nordbank", "ORG", "E2"), ("Ms Berg", "PERSON", "E1"), ("Oslo", "LOC", "E3")]),
        doc("en-2", "en", "Oslo is cold. Ms Berg met Olle Holm in Oslo. Olle Holm left.",
            [("Oslo", "LOC"), ("Ms Berg", "PERSON"), ("Olle Holm", "PERSON"), ("Oslo", "LOC"),
             ("Olle Holm", "PERSON")]),
        doc("sv-1", "sv", "Karin Ström bor i Malmö. Karin Ström arbetar i Malmö med Olle Holm.",
            [("Karin Ström", "PERSON"), ("Malmö", "LOC"), ("Karin Ström", "PERSON"), ("Malmö", "LOC"),
             ("Olle Holm", "PERSON")]),
    ))


def mentions_of(corpus, scope):
    """entity key -> mentions as (doc_id, span_index), in corpus order."""
    groups: dict = {}
    for (n, i), key in entity_keys(corpus, scope).items():
        groups.setdefault(key, []).append((corpus.documents[n].doc_id, i))
    return {k: sorted(v, key=lambda m: ([d.doc_id for d in corpus.documents].index(m[0]), m[1]))
            for k, v in groups.items()}


def test_entities_by_document_and_across_the_corpus():
    corpus = make_corpus()
    by_doc = sorted(sorted(g) for g in mentions_of(corpus, "document").values())
    assert [("tab-1", 0), ("tab-1", 2), ("tab-1", 5)] in by_doc  # the corpus's ids: two surface forms
    assert [("en-2", 0), ("en-2", 3)] in by_doc and [("en-2", 1)] in by_doc
    across = sorted(sorted(g) for g in mentions_of(corpus, "corpus").values())
    # "Ms Berg" of en-2 joins tab-1's E1 through tab-1's own "Ms Berg" (same label and text),
    # and so gets the pseudonym of "Anna Berg": links are followed transitively.
    assert sorted([("tab-1", 0), ("tab-1", 2), ("tab-1", 5), ("en-2", 1)]) in across
    assert sorted([("tab-1", 3), ("tab-1", 6), ("en-2", 0), ("en-2", 3)]) in across  # Oslo
    assert sorted([("en-2", 2), ("en-2", 4), ("sv-1", 4)]) in across  # Olle Holm, EN and SV
    assert len(across) == 6 and len(by_doc) == 9
    # Two entity ids of one document whose mentions read alike (a father and son both "Jan
    # Berg"): document scope keeps the corpus's ids apart, corpus scope joins the same text.
    text = "Jan Berg sued. Jan Berg, his son, testified."
    father_son = Corpus("consistent", "x", (build_document("consistent", "tab-2", text, "en", [
        RawSpan(0, 8, "PERSON", entity_id="tab-2|E1"), RawSpan(15, 23, "PERSON", entity_id="tab-2|E2")]),))
    assert sorted(mentions_of(father_son, "document").values()) == [[("tab-2", 0)], [("tab-2", 1)]]
    assert list(mentions_of(father_son, "corpus").values()) == [[("tab-2", 0), ("tab-2", 1)]]


class Recorder(Generator):
    """Answers a distinct pseudonym per slot ("P<doc>#<span>"); records its calls; fails where told."""
    name = "recorder"

    def __init__(self, options, fail=lambda slot: False):
        super().__init__(None, options)
        self.calls: list[list] = []
        self.fail = fail

    def generate(self, slots):
        self.calls.append(list(slots))
        return [Prediction((), failed=True, note="unreachable: test") if self.fail(s)
                else Prediction((f"P{s.doc_id}#{s.span_index}", "spare")) for s in slots]


def run(store, corpus, generator, batch_size=3, **kwargs):
    record = run_generation(store, corpus, generator, WordListTagger(), progress=False, batch_size=batch_size,
                            **kwargs)
    return record, {(p.doc_id, p.span_index): p for p in store.predictions(record.run_id)}


@pytest.mark.parametrize("scope", ["document", "corpus"])
@pytest.mark.parametrize("mode", ["maskL", "repL"])
def test_first_mentions_are_generated_and_later_ones_reuse_them(store, scope, mode):
    corpus = make_corpus()
    gen = Recorder(GenerationOptions(mode=mode, consistent=scope))
    record, preds = run(store, corpus, gen)
    entities = mentions_of(corpus, scope)
    sent = [(s.doc_id, s.span_index) for call in gen.calls for s in call]
    assert sorted(sent) == sorted(m[0] for m in entities.values())  # each first mention once, nothing else
    for mentions in entities.values():
        first, *later = mentions
        assert preds[first].pseudonym == f"P{first[0]}#{first[1]}" and not is_reused(preds[first].note)
        for m in later:
            p = preds[m]
            assert (p.pseudonym, p.candidates, p.note, p.seconds, p.requests, p.failed) == (
                preds[first].pseudonym, (preds[first].pseudonym,), reused_note(*first), 0.0, 0, False)
    assert record.consistent == scope and f"|consistent={scope}|" in record.signature


@pytest.mark.parametrize("scope", ["document", "corpus"])
def test_a_reused_pick_stands_in_the_context_of_later_repl_windows(store, scope):
    corpus = make_corpus()
    gen = Recorder(GenerationOptions(mode="repL", consistent=scope, window=3))
    _, preds = run(store, corpus, gen)
    checked = 0
    for slot in (s for call in gen.calls for s in call):
        for piece in slot.pieces:
            if isinstance(piece, Gap) and piece.span_index < slot.span_index:
                assert piece.fill == preds[(slot.doc_id, piece.span_index)].pseudonym
                checked += is_reused(preds[(slot.doc_id, piece.span_index)].note)
    assert checked  # some window held a reused pick, not only generated ones


def test_a_failed_first_mention_hands_the_entity_to_the_next_and_retry_keeps_it(store):
    """Anna Berg's first mention fails (the server was down): the second is generated, the
    third reuses the second; --retry-failed then gives the first mention the same pseudonym."""
    corpus = make_corpus()
    options = GenerationOptions(mode="repL", consistent="document")
    down = Recorder(options, fail=lambda s: (s.doc_id, s.span_index) == ("tab-1", 0))
    record, preds = run(store, corpus, down)
    assert preds[("tab-1", 0)].failed
    assert preds[("tab-1", 2)].pseudonym == "Ptab-1#2" and not is_reused(preds[("tab-1", 2)].note)
    assert preds[("tab-1", 5)].note == reused_note("tab-1", 2)
    up = Recorder(options)
    record, preds = run(store, corpus, up, retry_failed=True)
    assert up.calls == []  # the entity has its pseudonym: nothing to generate
    assert [preds[("tab-1", i)].pseudonym for i in (0, 2, 5)] == ["Ptab-1#2"] * 3
    assert preds[("tab-1", 0)].note == reused_note("tab-1", 2) and record.status == "complete"


def test_no_batch_sends_a_mention_before_the_earlier_mentions_of_its_entity_are_decided(store):
    """Every first mention fails once, so each entity's mentions go to the generator one by
    one: a mention is sent only after every earlier mention of its entity came back."""
    corpus = make_corpus()
    failing_first = {m[0] for m in mentions_of(corpus, "corpus").values()}
    gen = Recorder(GenerationOptions(consistent="corpus"), fail=lambda s: (s.doc_id, s.span_index) in failing_first)
    _, preds = run(store, corpus, gen, batch_size=32)
    when = {(s.doc_id, s.span_index): n for n, call in enumerate(gen.calls) for s in call}
    for first, *later in mentions_of(corpus, "corpus").values():
        assert preds[first].failed
        if later:  # the second mention is generated after the first came back; the rest reuse it
            assert when[later[0]] > when[first] and not preds[later[0]].failed
            assert all(preds[m].note == reused_note(*later[0]) for m in later[1:])


def test_the_leak_guard_refuses_a_reused_pseudonym_that_overlaps_a_later_mention(store):
    """tab-1's E1 is "Anna Berg", "Ms Berg", "Ms Berg": the pseudonym "Ms Lund" is safe for the
    first mention and shares "Ms" with the later ones, so the guard refuses it there."""
    corpus = make_corpus()

    class Fixed(Recorder):
        def generate(self, slots):
            self.calls.append(list(slots))
            return [Prediction(("Ms Lund",) if (s.doc_id, s.span_index) == ("tab-1", 0)
                               else (f"P{s.doc_id}#{s.span_index}",)) for s in slots]

    gen = Fixed(GenerationOptions(consistent="document", leak_guard=True))
    _, preds = run(store, corpus, gen)
    assert preds[("tab-1", 0)].pseudonym == "Ms Lund"
    for i in (2, 5):
        assert preds[("tab-1", i)].failed and preds[("tab-1", i)].pseudonym == FAILED
        assert preds[("tab-1", i)].note.startswith("leak guard") and reused_note("tab-1", 0) in preds[("tab-1", i)].note
    assert ("tab-1", 2) not in {(s.doc_id, s.span_index) for call in gen.calls for s in call}
    # --retry-failed reuses the entity's pseudonym again, and the guard refuses it again.
    again = Fixed(GenerationOptions(consistent="document", leak_guard=True))
    _, retried = run(store, corpus, again, retry_failed=True)
    assert again.calls == [] and all(retried[("tab-1", i)].failed for i in (2, 5))
    # Without the guard the same run reuses "Ms Lund" everywhere.
    _, plain = run(store, corpus, Fixed(GenerationOptions(consistent="document")))
    assert {plain[("tab-1", i)].pseudonym for i in (0, 2, 5)} == {"Ms Lund"}


def test_a_reused_pick_keeps_the_pick_upos_of_its_source(store):
    """upos_accuracy_pick reads a recorded pick UPOS where there is one: a reused pseudonym
    carries its source's, so it is read as the same word where generated."""
    corpus = make_corpus()
    _, preds = run(store, corpus, create_generator("upos", options=GenerationOptions(consistent="corpus",
                                                                                     upos_filter=True)))
    reused = [p for p in preds.values() if is_reused(p.note)]
    assert len(reused) > 5
    for p in reused:
        doc_id, i = p.note.removeprefix("reused:").rsplit("#", 1)
        source = preds[(doc_id, int(i))]
        assert p.pseudonym == source.pseudonym and p.pick_upos == source.pick_upos is not None


def _outputs(store, run_id):
    # pick_upos too: a reuse after a resume takes it from the stored source (ConsistentPlan).
    return [(p.doc_id, p.span_index, p.pseudonym, p.candidates, p.rank, p.failed, p.pick_upos, p.note)
            for p in store.predictions(run_id)]


class Interrupt(Exception):
    pass


@pytest.mark.parametrize("name", ["random", "upos"])
@pytest.mark.parametrize("scope", ["document", "corpus"])
@pytest.mark.parametrize("mode", ["maskL", "repL"])
def test_interrupted_at_seeded_points_resumes_to_the_uninterrupted_output(tmp_path, name, scope, mode):
    corpus = make_corpus()
    options = GenerationOptions(mode=mode, consistent=scope, upos_filter=name == "upos", leak_guard=True)
    whole = RunStore(tmp_path / "whole.sqlite")
    reference = _outputs(whole, run(whole, corpus, create_generator(name, options=options), batch_size=2)[0].run_id)
    assert any(is_reused(r[-1]) for r in reference)
    # Batch size does not matter either: one at a time gives the same.
    one = RunStore(tmp_path / "one.sqlite")
    assert _outputs(one, run(one, corpus, create_generator(name, options=options), batch_size=1)[0].run_id) == reference
    broken = RunStore(tmp_path / "broken.sqlite")
    stops = sorted(random.Random(f"{name}{scope}{mode}").sample(range(1, corpus.n_slots), 4))
    for stop_at in stops:
        def hook(n_done, stop_at=stop_at):
            if n_done >= stop_at:
                raise Interrupt
        with pytest.raises(Interrupt):
            run(broken, corpus, create_generator(name, options=options), batch_size=2, after_batch=hook)
    record, _ = run(broken, corpus, create_generator(name, options=options), batch_size=2)
    assert record.status == "complete" and _outputs(broken, record.run_id) == reference


def test_the_option_is_checked_and_off_keeps_the_run_id(store):
    with pytest.raises(WorkbenchError, match="consistent must be one of off, document, corpus"):
        GenerationOptions(consistent="entity")
    corpus = make_corpus()
    ids = {scope: run(store, corpus, create_generator("random", options=GenerationOptions(consistent=scope)))[0]
           for scope in ("off", "document", "corpus")}
    assert len({r.run_id for r in ids.values()}) == 3
    assert "consistent=" not in ids["off"].signature and ids["off"].consistency == "off"
    assert ids["corpus"].signature_record.render() == ids["corpus"].signature


def test_random_without_consistency_is_inconsistent_here(store):
    """The corpus above is one where consistency is not an accident: without the option the
    random baseline gives repeated mentions different forms."""
    corpus = make_corpus()
    _, preds = run(store, corpus, create_generator("random"))
    assert len({preds[("tab-1", i)].pseudonym for i in (0, 2, 5)}) > 1
    assert not any(is_reused(p.note) for p in preds.values()) and FAILED not in {p.pseudonym for p in preds.values()}
