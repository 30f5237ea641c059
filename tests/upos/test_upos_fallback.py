"""A pick where the UPOS filter found no candidate of the original's UPOS and kept the top-1 says
so: in the store, the CSV export and `workbench show`; and `show` lists FAILED notes (issue 15 item 7)."""

from __future__ import annotations

import pandas as pd

from tests.helpers.entry_point import wb
from tests.metrics.conftest import WordListTagger
from tests.store.test_store_restored_dump import undo_migrations_after
from workbench.exchange.exporters import export_run
from workbench.generation.engine import run_generation
from workbench.generator_contract import GenerationOptions
from workbench.generator_contract.base import Generator, Prediction
from workbench.store import RunStore
from workbench.views.show import UPOS_FALLBACK, show_run


class TwoCandidates(Generator):
    """Every slot gets ("12", "city"): the word-list tagger reads NUM and NOUN, never PROPN, so a
    name's pick is the filter's fallback, a number's or a common noun's is not."""
    name = "two-candidates"

    def generate(self, slots):
        return [Prediction(("12", "city")) if s.label != "ORG" else Prediction((), failed=True, note="timeout")
                for s in slots]


def _run(store, corpus, upos_filter=True):
    generator = TwoCandidates(options=GenerationOptions(upos_filter=upos_filter))
    return run_generation(store, corpus, generator, WordListTagger(), progress=False)


def test_the_fallback_is_stored_per_pick_and_only_where_the_filter_chose(store, tiny_corpus):
    run = _run(store, tiny_corpus)
    originals = store.span_upos(run.corpus_hash, run.tagger)
    for p in store.predictions(run.run_id):
        wanted = originals[(p.doc_id, p.span_index)]
        if p.failed:
            assert p.upos_fallback is None
        elif wanted in ("NUM", "NOUN"):
            assert (p.pseudonym, p.upos_fallback) == ({"NUM": "12", "NOUN": "city"}[wanted], False)
        else:
            assert (p.pseudonym, p.upos_fallback) == ("12", True), (p, wanted)  # the top-1
    unfiltered = _run(store, tiny_corpus, upos_filter=False)
    assert {p.upos_fallback for p in store.predictions(unfiltered.run_id)} == {None}


def test_the_csv_export_and_show_say_so_and_show_lists_failed_notes(store, tiny_corpus, tmp_path):
    run = _run(store, tiny_corpus)
    frame = pd.read_csv(export_run(store, run.run_id, "csv", tmp_path / "run.csv"))
    stored = {(p.doc_id, p.span_index): p.upos_fallback for p in store.predictions(run.run_id)}
    assert [stored[(d, i)] for d, i in zip(frame["doc_id"], frame["span_index"])] == [
        None if pd.isna(v) else bool(v) for v in frame["upos_fallback"]]
    parquet = pd.read_parquet(export_run(store, run.run_id, "parquet", tmp_path / "run.parquet"))
    assert [None if pd.isna(v) else bool(v) for v in parquet["upos_fallback"]] == list(
        frame["upos_fallback"].map(lambda v: None if pd.isna(v) else bool(v)))

    lines = list(show_run(store, run.run_id, "en-1", spans_only=True))
    oslo = next(line for line in lines if "'Oslo'" in line)
    teacher = next(line for line in lines if "'teacher'" in line)
    nordbank = next(line for line in lines if "'Nordbank'" in line)
    assert oslo.endswith(f"({UPOS_FALLBACK})") and UPOS_FALLBACK not in teacher
    assert nordbank.endswith("(FAILED: timeout)")

    listing = list(show_run(store, run.run_id))
    assert listing[0].startswith("en-1  en  10 spans  1 FAILED  ")  # Nordbank failed; names fell back
    assert listing[-2] == "FAILED notes (1 span(s)):" and listing[-1].startswith("      1 × timeout  (first: en-1 #6)")


def test_a_store_from_before_the_column_is_backfilled_from_the_picks_it_stored(tmp_path, tiny_corpus):
    path = tmp_path / "old.sqlite"
    with RunStore(path) as s:
        run = _run(s, tiny_corpus)
        expected = {(p.doc_id, p.span_index): p.upos_fallback for p in s.predictions(run.run_id)}
    assert {True, False, None} <= set(expected.values())
    undo_migrations_after(path, 6)  # as migration 6 left it: no hidden_runs, no upos_fallback column
    with RunStore(path) as s:
        assert {(p.doc_id, p.span_index): p.upos_fallback for p in s.predictions(run.run_id)} == expected


def test_show_of_a_whole_run_through_the_cli(tmp_path, tiny_corpus):
    path = tmp_path / "runs.sqlite"
    with RunStore(path) as s:
        run = _run(s, tiny_corpus)
    result = wb("show", run.run_id[:8], "--store", path)
    assert result.returncode == 0 and "FAILED notes (1 span(s)):" in result.stdout
