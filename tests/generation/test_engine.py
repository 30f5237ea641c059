"""The run engine and store: baselines, selection options, resume after a kill."""

from __future__ import annotations

import random
import sqlite3
import subprocess

import pytest

from tests.helpers.entry_point import WORKBENCH
from tests.helpers.store import kill_at_stored_rows
from workbench.generation.engine import run_generation
from workbench.generator_contract import FAILED, GenerationOptions, Prediction, create_generator
from workbench.generator_contract.base import Generator
from workbench.loaders.conllu import load_vocabulary
from workbench.loaders.shipped import vocabulary_path
from workbench.text.overlap_rules import leaks
from workbench.upos import get_tagger


def tagger():
    return get_tagger("spacy", quiet=True)


def picks(store, run_id):
    return [(p.doc_id, p.span_index, p.pseudonym, p.candidates) for p in store.predictions(run_id)]


@pytest.mark.parametrize("name", ["random", "upos"])
def test_baselines_are_seeded_and_draw_from_pud(tiny_corpus, store, name):
    runs = [run_generation(store, tiny_corpus, create_generator(name, options=GenerationOptions(seed=s)), tagger(),
                           progress=False) for s in (1, 1, 2)]
    assert runs[0].run_id == runs[1].run_id  # same signature: the stored run is reused
    one, other = picks(store, runs[0].run_id), picks(store, runs[2].run_id)
    assert len(one) == tiny_corpus.n_slots and one != other
    vocab = {lang: {e.form for e in load_vocabulary(vocabulary_path(lang))} for lang in ("en", "sv")}
    for doc_id, _, pseudonym, _ in one:
        assert pseudonym in vocab[tiny_corpus.document(doc_id).lang]


def test_upos_baseline_matches_the_original_upos(tiny_corpus, store):
    run = run_generation(store, tiny_corpus, create_generator("upos"), tagger(), progress=False)
    gold = {}
    for lang in ("en", "sv"):
        for e in load_vocabulary(vocabulary_path(lang)):
            gold.setdefault((lang, e.form), set()).add(e.upos)
    upos = store.span_upos(tiny_corpus.content_hash, tagger().name)
    for p in store.predictions(run.run_id):
        wanted = upos[(p.doc_id, p.span_index)]
        assert wanted in gold[(tiny_corpus.document(p.doc_id).lang, p.pseudonym)]


class ListGenerator(Generator):
    """Answers fixed candidate lists; lets a test steer selection."""
    name = "list"

    def __init__(self, options, answers):
        super().__init__(None, options)
        self.answers = answers

    def generate(self, slots):
        return [self.answers(s) for s in slots]


def test_leak_guard_skips_overlapping_candidates_and_fails_when_all_leak(tiny_corpus, store):
    def answers(slot):
        original = tiny_corpus.document(slot.doc_id).spans[slot.span_index].text
        if slot.span_index == 0:
            return Prediction((original, original.upper()))  # nothing safe left
        return Prediction((original, original.split()[0] + " Smith", "Quentin"))

    gen = ListGenerator(GenerationOptions(leak_guard=True), answers)
    run = run_generation(store, tiny_corpus, gen, tagger(), progress=False)
    for p in store.predictions(run.run_id):
        original = tiny_corpus.document(p.doc_id).spans[p.span_index].text
        if p.span_index == 0:
            assert p.failed and p.pseudonym == FAILED and "leak guard" in p.note
        else:
            # "1975 Smith" shares only a numeral with "1975", which is not a leak (003 §4);
            # "Anna Smith" shares a name with "Anna Berg", which is.
            expected_rank = 1 if original.split()[0].isdigit() else 2
            assert p.rank == expected_rank and not p.failed
            assert not leaks(p.pseudonym, original)


def test_upos_filter_takes_the_first_candidate_with_the_wanted_upos(tiny_corpus, store):
    # "quickly" (ADV) and "the" (DET) never fit a PROPN/NOUN/NUM slot; a noun or a number does.
    gen = ListGenerator(GenerationOptions(upos_filter=True),
                        lambda s: Prediction(("quickly", "the", "Stockholm", "table", "42")))
    run = run_generation(store, tiny_corpus, gen, tagger(), progress=False)
    upos = store.span_upos(tiny_corpus.content_hash, tagger().name)
    for p in store.predictions(run.run_id):
        if p.pick_upos == upos[(p.doc_id, p.span_index)]:
            assert p.rank >= 2  # the two misfits were skipped
        else:
            assert p.rank == 0  # none fitted: top-1


def test_a_prediction_is_never_stored_twice(tiny_corpus, store):
    run = run_generation(store, tiny_corpus, create_generator("random"), tagger(), progress=False)
    first = store.predictions(run.run_id)[0]
    with pytest.raises(sqlite3.IntegrityError):
        store.add_predictions(run.run_id, [first])
    assert len(store.predictions(run.run_id)) == tiny_corpus.n_slots


class Interrupt(Exception):
    pass


@pytest.mark.parametrize("mode", ["maskL", "repL"])
def test_a_run_interrupted_between_batches_resumes_to_the_same_output(tiny_corpus, tmp_path, mode):
    from workbench.store import RunStore
    options = GenerationOptions(mode=mode, upos_filter=True)
    whole = RunStore(tmp_path / "whole.sqlite")
    reference = picks(whole, run_generation(whole, tiny_corpus, create_generator("upos", options=options), tagger(),
                                            progress=False, batch_size=2).run_id)
    broken = RunStore(tmp_path / "broken.sqlite")
    for stop_at in (2, 5, 9):
        def hook(n_done, stop_at=stop_at):
            if n_done >= stop_at:
                raise Interrupt
        with pytest.raises(Interrupt):
            run_generation(broken, tiny_corpus, create_generator("upos", options=options), tagger(), progress=False,
                           batch_size=2, after_batch=hook)
        assert broken.runs()[0].status == "running"
    record = run_generation(broken, tiny_corpus, create_generator("upos", options=options), tagger(), progress=False,
                            batch_size=2)
    assert record.status == "complete"
    assert picks(broken, record.run_id) == reference


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["maskL", "repL"])
def test_killing_the_cli_at_random_points_and_resuming_gives_identical_output(tmp_path, mode):
    """SIGKILL a real `workbench generate` over the whole TAB test split, again and again.

    The kill points are drawn in stored predictions, not seconds, so the test kills
    mid-run however fast the machine is: each attempt polls the store and kills as
    soon as it holds at least the drawn number of rows (one attempt kills during start-up).
    """
    def command(store):
        return [WORKBENCH, "generate", "-c", "tab-test", "-g", "random", "--mode", mode,
                "--batch-size", "4", "--store", str(store), "--no-progress", "--tagger", "spacy"]

    subprocess.run(command(tmp_path / "whole.sqlite"), check=True, capture_output=True)
    killed = tmp_path / "killed.sqlite"
    rng = random.Random(7)
    targets = [0] + sorted(rng.randrange(1, 7000) for _ in range(5))
    seen = kill_at_stored_rows(command(killed), killed, targets, rng)
    kills = len(seen)
    subprocess.run(command(killed), check=True, capture_output=True)
    assert kills >= 3 and any(0 < n < 7320 for n in seen), \
        f"only {kills} kills, rows at the kills {seen}: the test did not kill mid-run"
    con_a = sqlite3.connect(tmp_path / "whole.sqlite")
    con_b = sqlite3.connect(tmp_path / "killed.sqlite")
    query = "SELECT doc_id, span_index, pseudonym, candidates, rank, failed FROM predictions ORDER BY 1, 2"
    a, b = con_a.execute(query).fetchall(), con_b.execute(query).fetchall()
    assert len(a) == 7320 and a == b
    assert con_b.execute("SELECT status FROM runs").fetchall() == [("complete",)]
