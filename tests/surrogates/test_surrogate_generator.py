"""`-g surrogate` through the engine, pipeline.generate_run and the CLI: what it sees, what it stores."""

from __future__ import annotations

import itertools
import subprocess
from datetime import date

import pytest

from tests.helpers.corpus import document_with_mentions
from tests.helpers.entry_point import WORKBENCH
from tests.metrics.conftest import WordListTagger
from tests.surrogates.surrogate_helpers import bilingual_corpus, write_doccano
from workbench.data_model import Corpus
from workbench.generation.engine import run_generation
from workbench.generator_contract import GenerationOptions, create_generator
from workbench.store import RunStore
from workbench.text.dates import read_date
from workbench.text.shape import shape_of


def picks(store, run_id):
    return {(p.doc_id, p.span_index): (p.pseudonym, p.candidates, p.note) for p in store.predictions(run_id)}


def generate(store, corpus, settings=None, batch_size=32, **options):
    gen = create_generator("surrogate", {k: str(v).lower() if isinstance(v, bool) else str(v)
                                         for k, v in (settings or {}).items()}, GenerationOptions(**options))
    return run_generation(store, corpus, gen, WordListTagger(), progress=False, batch_size=batch_size)


def test_a_run_is_complete_and_its_signature_records_what_it_sees(store):
    corpus = bilingual_corpus()
    run = generate(store, corpus)
    assert run.status == "complete" and store.count_predictions(run.run_id) == corpus.n_slots
    assert store.count_predictions(run.run_id, failed=True) == 0
    assert run.sees == "original;CODE=shape"  # shape for codes, the original for the rest
    assert "|gen=surrogate|" in run.signature and "|sees=original;CODE=shape|" in run.signature
    assert "|model=faker-" in run.signature and "+table-" in run.signature


def test_codes_are_revealed_as_shapes_and_everything_else_as_originals(store):
    from workbench.adapters.surrogate.generator import Surrogate

    class Spy(Surrogate):
        def generate(self, slots):
            self.seen = getattr(self, "seen", []) + list(slots)
            return super().generate(slots)

    corpus = bilingual_corpus()
    spy = Spy()
    run_generation(store, corpus, spy, WordListTagger(), progress=False)
    for slot in spy.seen:
        original = corpus.document(slot.doc_id).spans[slot.span_index].text
        if slot.label == "CODE":
            assert (slot.sees, slot.original, slot.shape) == ("shape", None, shape_of(original))
        else:
            assert (slot.sees, slot.original) == ("original", original)


def test_stored_dates_keep_every_interval_of_their_document(store):
    corpus = bilingual_corpus()
    for seed in (1, 2, 3):
        stored = picks(store, generate(store, corpus, seed=seed).run_id)
        for doc in corpus.documents:
            pairs = []
            for i, span in enumerate(doc.spans):
                before = read_date(span.text, weekdays=True, any_words=True)
                if span.label in ("DATETIME", "date") and before.day and before.month and before.year:
                    after = read_date(stored[(doc.doc_id, i)][0], weekdays=True, any_words=True)
                    pairs.append((date(before.year, before.month, before.day),
                                  date(after.year, after.month, after.day)))
            assert len(pairs) >= 2
            for (a, a2), (b, b2) in itertools.combinations(pairs, 2):
                assert (b2 - a2).days == (b - a).days


def test_the_output_does_not_depend_on_batching_mode_or_interruption(tmp_path):
    corpus = bilingual_corpus()
    whole = RunStore(tmp_path / "whole.sqlite")
    reference = picks(whole, generate(whole, corpus, batch_size=32).run_id)
    assert picks(whole, generate(whole, corpus, batch_size=1, mode="repL").run_id) == reference

    class Interrupt(Exception):
        pass

    broken = RunStore(tmp_path / "broken.sqlite")
    gen = create_generator("surrogate")
    for stop_at in (3, 11, 25):
        def hook(n_done, stop_at=stop_at):
            if n_done >= stop_at:
                raise Interrupt
        with pytest.raises(Interrupt):
            run_generation(broken, corpus, create_generator("surrogate"), WordListTagger(), progress=False,
                           batch_size=3, after_batch=hook)
    record = run_generation(broken, corpus, gen, WordListTagger(), progress=False, batch_size=3)
    assert record.status == "complete" and picks(broken, record.run_id) == reference


def test_seed_and_options_make_other_runs(store):
    corpus = bilingual_corpus()
    base = generate(store, corpus)
    runs = [generate(store, corpus, seed=99), generate(store, corpus, {"keep_gender": True}),
            generate(store, corpus, {"max_shift_days": 30})]
    assert len({base.run_id, *(r.run_id for r in runs)}) == 4
    first = picks(store, base.run_id)
    assert sum(first[k][0] != v[0] for k, v in picks(store, runs[0].run_id).items()) > len(first) * 0.8
    for (doc_id, i), (text, _, _) in picks(store, runs[2].run_id).items():  # at most 30 days away
        span = corpus.document(doc_id).spans[i]
        before = read_date(span.text, weekdays=True, any_words=True)
        if span.label in ("DATETIME", "date") and before.day and before.month and before.year:
            after = read_date(text, weekdays=True, any_words=True)
            moved = date(after.year, after.month, after.day) - date(before.year, before.month, before.day)
            assert 1 <= abs(moved.days) <= 30


def test_with_the_leak_guard_no_shape_drawn_code_equals_its_original(store):
    """A one-digit code seen by its shape alone equals its original 1 time in 10; the top-k
    distinct draws let the engine's leak guard take another."""
    text = " ".join(f"Item {d} is {d}." for d in "0123456789" * 3)
    mentions = [(d, "CODE") for d in "0123456789" * 3 for _ in range(2)]  # each digit twice a sentence
    corpus = Corpus("digits", "test", (document_with_mentions("digits", "d", text, mentions),))
    plain = picks(store, generate(store, corpus).run_id)
    assert any(p[0] == corpus.documents[0].spans[i].text for (_, i), p in plain.items())  # it does happen
    guarded = picks(store, generate(store, corpus, leak_guard=True).run_id)
    assert all(p[0] != corpus.documents[0].spans[i].text and p[0].isdigit() for (_, i), p in guarded.items())


def test_generate_run_and_the_cli_store_a_complete_run(tmp_path):
    from workbench.pipeline import generate_run
    from workbench.upos import get_tagger
    corpus = bilingual_corpus()
    result = generate_run(corpus, "surrogate", {"keep_gender": "true"}, {"seed": 5}, store=tmp_path / "py.sqlite",
                          tagger=get_tagger("spacy", quiet=True), progress=False)
    assert result.run.status == "complete" and result.stored == corpus.n_slots and result.failed == 0

    path = write_doccano(corpus, tmp_path / "tiny.jsonl")
    cli_store = tmp_path / "cli.sqlite"
    cmd = [WORKBENCH, "generate", "-c", str(path), "-g", "surrogate", "-o",
           "keep_gender=true", "--seed", "5", "--tagger", "spacy", "--store", str(cli_store), "--no-progress"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    [run] = RunStore(cli_store).runs()
    assert run.status == "complete" and run.sees == "original;CODE=shape"
    assert RunStore(cli_store).count_predictions(run.run_id) == corpus.n_slots


def test_the_cli_refuses_a_bad_table_with_its_name_and_writes_nothing(tmp_path):
    path = write_doccano(bilingual_corpus(), tmp_path / "tiny.jsonl")
    bad = tmp_path / "broken-table.toml"
    bad.write_text("[labels.PERSON]\nkind = 'fancy'\n", encoding="utf-8")
    cli_store = tmp_path / "cli.sqlite"
    cmd = [WORKBENCH, "generate", "-c", str(path), "-g", "surrogate", "-o",
           f"table={bad}", "--tagger", "spacy", "--store", str(cli_store), "--no-progress"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode == 2 and "broken-table.toml" in done.stderr and "Traceback" not in done.stderr
    assert not cli_store.exists()


@pytest.mark.parametrize("days", ["10000000", "36526", "0"])
def test_the_cli_refuses_a_date_shift_out_of_range_and_writes_nothing(tmp_path, days):
    # 10**7 days overflowed Python's dates mid-run; the bound stops it before anything is stored.
    path = write_doccano(bilingual_corpus(), tmp_path / "tiny.jsonl")
    cli_store = tmp_path / "cli.sqlite"
    cmd = [WORKBENCH, "generate", "-c", str(path), "-g", "surrogate", "-o",
           f"max_shift_days={days}", "--tagger", "spacy", "--store", str(cli_store), "--no-progress"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "max_shift_days" in done.stderr and "1..36525" in done.stderr
    assert not cli_store.exists()
