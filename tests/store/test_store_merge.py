"""workbench store merge (workbench.store.merge): two laptops' stores into one, all or nothing."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.helpers.corpus import make_tiny_corpus
from tests.helpers.store import generated_run
from workbench.annotation.storage import AnnotationStore
from workbench.infra.errors import WorkbenchError
from workbench.store import COMPLETE, RUNNING, RunStore
from workbench.store.annotations import Annotation, SampleItem
from workbench.store.merge import merge_stores
from workbench.store.schema import VERSION

# Columns that record how long or in which order, not what: they may differ between two stores.
TIMING_COLUMNS = {"seq", "seconds", "requests"}
ITEMS = (("en-1", 0), ("en-1", 1), ("sv-1", 0))


def _reid_row(run_id, doc_id, top_guess="p1"):
    from workbench.privacy.reid_attacks.reid_store import ReidRow
    return ReidRow(run_id, "key1", doc_id, "retrieval", "{}", "bg@ab", "ab", "cd", "p1", 0, 0, 3, top_guess, 1.0)


def _laptop(path, corpus, annotator, tags, seeds):
    """A store as a laptop leaves it: random runs (one per seed), the first one annotated by `annotator`
    on ITEMS with `tags`, in a sample, and a re-identification result per document of it."""
    from workbench.privacy.reid_attacks.reid_store import TABLE
    with RunStore(path) as store:
        runs = [generated_run(store, corpus, seed=s) for s in seeds]
        run_id = runs[0].run_id
        annotations = AnnotationStore(store)
        annotations.create_sample("s1", [SampleItem(run_id, d, i) for d, i in ITEMS], {"n": 3})
        annotations.save_many([Annotation(run_id, d, i, annotator, t) for (d, i), t in zip(ITEMS, tags)])
        TABLE.save_rows(store, [_reid_row(run_id, d.doc_id) for d in corpus.documents])
        return [r.run_id for r in runs]


@pytest.fixture(scope="module")
def laptop_files(tmp_path_factory):
    """Anna's laptop: run seed 1 (annotated) and seed 3; Bo's: the same run seed 1 (annotated) and seed 2.
    Made once; each test gets copies (`laptops`)."""
    corpus, folder = make_tiny_corpus(), tmp_path_factory.mktemp("laptops")
    a, b = folder / "anna.sqlite", folder / "bo.sqlite"
    runs_a = _laptop(a, corpus, "anna", ["NO_ERROR", "POS", "GRAMMAR"], seeds=(1, 3))
    runs_b = _laptop(b, corpus, "bo", ["NO_ERROR", "GRAMMAR", "GRAMMAR"], seeds=(1, 2))
    assert runs_a[0] == runs_b[0] and len({*runs_a, *runs_b}) == 3
    return a, b, runs_a, runs_b


@pytest.fixture
def laptops(laptop_files, tmp_path):
    a, b, runs_a, runs_b = laptop_files
    return Path(shutil.copy(a, tmp_path)), Path(shutil.copy(b, tmp_path)), runs_a, runs_b


def dump(path) -> dict[str, list[tuple]]:
    """Every merged table's rows, sorted, without timing columns (run_leases are never merged)."""
    with sqlite3.connect(path) as db:
        tables = [t for t, in db.execute("SELECT name FROM sqlite_master WHERE type='table'")
                  if t not in ("sqlite_sequence", "run_leases")]
        out = {}
        for t in tables:
            cols = [c[1] for c in db.execute(f'PRAGMA table_info("{t}")') if c[1] not in TIMING_COLUMNS]
            quoted = ", ".join(f'"{c}"' for c in cols)
            out[t] = sorted(db.execute(f'SELECT {quoted} FROM "{t}"').fetchall(), key=repr)
    return out


def _counts(path) -> dict[str, int]:
    return {t: len(rows) for t, rows in dump(path).items()}


def test_two_laptops_merge_into_one_store_with_everything(laptops, tmp_path):
    a, b, runs_a, runs_b = laptops
    into = tmp_path / "merged.sqlite"
    summary = merge_stores([a, b], into)
    assert [(s.runs_added, s.runs_present) for s in summary.sources] == [(2, 0), (1, 1)]
    # Bo's run seed 2 has 21 spans (tiny corpus: 10 + 4 + 7), his annotations 3 and log 3 (the shared
    # run and its predictions are already there from Anna's store).
    assert summary.sources[1].added["predictions"] == 21
    assert summary.sources[1].added["annotations"] == 3 and summary.sources[1].log_added == 3
    assert summary.sources[1].added.get("privacy", 0) == 0  # the same reid rows, deduplicated
    merged = dump(into)
    assert len(merged["runs"]) == 3 and len(merged["predictions"]) == 63
    assert {r[3] for r in merged["annotations"]} == {"anna", "bo"} and len(merged["annotation_log"]) == 6
    assert len(merged["reid_results"]) == 3 and len(merged["annotation_samples"]) == 3
    with RunStore(into, read_only=True) as store, RunStore(a, read_only=True) as source:
        assert all(r.status == COMPLETE for r in store.runs())
        assert store.predictions(runs_a[1]) == source.predictions(runs_a[1])  # timings too: added as they were


def test_a_merged_run_exports_byte_identical_and_agreement_is_as_in_one_store(laptops, tmp_path):
    from workbench.annotation import annotator_agreement, results
    from workbench.exchange.exporters import export_run
    a, b, runs_a, _ = laptops
    into = tmp_path / "merged.sqlite"
    merge_stores([a, b], into)
    with RunStore(a, read_only=True) as source, RunStore(into, read_only=True) as merged:
        export_run(source, runs_a[1], "csv", tmp_path / "a.csv")
        export_run(merged, runs_a[1], "csv", tmp_path / "m.csv")
        summary = annotator_agreement.summarise(results.annotation_frame(AnnotationStore(merged)))
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "m.csv").read_bytes()
    # Hand count: anna NO_ERROR/POS/GRAMMAR, bo NO_ERROR/GRAMMAR/GRAMMAR: 2 of 3 agree.
    (pair,) = summary.pairs
    assert (pair.a, pair.b, pair.n_items) == ("anna", "bo", 3) and pair.observed == pytest.approx(2 / 3)


def test_merging_again_adds_nothing_and_either_direction_holds_the_same(laptops, tmp_path):
    a, b, _, _ = laptops
    into = tmp_path / "merged.sqlite"
    merge_stores([a, b], into)
    before = into.read_bytes()
    again = merge_stores([a, b], into)
    assert "nothing new" in again.lines()[-1] and into.read_bytes() == before
    a2, b2 = tmp_path / "a2.sqlite", tmp_path / "b2.sqlite"
    shutil.copy(a, a2)
    shutil.copy(b, b2)
    merge_stores([a2], b)  # A into B ...
    merge_stores([b2], a)  # ... and B into A
    assert dump(a) == dump(b) == dump(into)


def test_an_incomplete_run_is_completed_by_the_complete_one(laptops, tmp_path):
    a, b, runs_a, _ = laptops
    with sqlite3.connect(b) as db:  # Bo's copy of the shared run was interrupted after en-1
        db.execute("DELETE FROM predictions WHERE run_id=? AND doc_id != 'en-1'", (runs_a[0],))
        db.execute("UPDATE runs SET status=?, finished=NULL WHERE run_id=?", (RUNNING, runs_a[0]))
    shutil.copy(b, tmp_path / "b-incomplete.sqlite")
    summary = merge_stores([a], b)
    assert summary.sources[0].runs_completed == 1 and summary.sources[0].added["predictions"] == 11 + 21
    with RunStore(b, read_only=True) as store:
        assert store.get_run(runs_a[0]).status == COMPLETE and store.count_predictions(runs_a[0]) == 21
    assert merge_stores([tmp_path / "b-incomplete.sqlite"], a).sources[0].runs_completed == 0
    with RunStore(a, read_only=True) as store:
        assert store.get_run(runs_a[0]).status == COMPLETE


@pytest.mark.parametrize("tamper, words", [
    ("UPDATE predictions SET pseudonym='Zed' WHERE doc_id='en-2' AND span_index=1 AND run_id='{run}'",
     ["run {run}", "document en-2, span 1", "pseudonym 'Zed' there"]),
    ("UPDATE annotations SET tag='OVERLAP' WHERE annotator='bo' AND doc_id='sv-1'",
     ["annotations of run {run}", "document sv-1", "annotator bo", "tag 'OVERLAP' there but 'GRAMMAR'"]),
    ("UPDATE documents SET text='changed' WHERE doc_id='en-2'", ["documents of corpus", "document en-2", "damaged"]),
    ("UPDATE reid_results SET top_guess='p9' WHERE doc_id='en-1'", ["reid_results of run {run}", "attack key key1"]),
])
def test_a_conflict_is_refused_by_name_and_nothing_is_merged(laptops, tmp_path, tamper, words):
    a, b, runs_a, _ = laptops
    into = tmp_path / "merged.sqlite"
    merge_stores([b], into)
    other = tmp_path / "other.sqlite"
    shutil.copy(b, other)
    with sqlite3.connect(other) as db:
        db.execute(tamper.format(run=runs_a[0]))
    before = into.read_bytes()
    with pytest.raises(WorkbenchError) as refused:
        merge_stores([a, other], into)  # Anna's store would merge; the tampered one cannot
    message = str(refused.value)
    assert all(w.format(run=runs_a[0]) in message for w in words) and "nothing was merged" in message
    assert into.read_bytes() == before
    with pytest.raises(WorkbenchError):  # a new destination of a refused merge is not left behind
        merge_stores([b, other], tmp_path / "new.sqlite")
    assert not (tmp_path / "new.sqlite").exists()


def test_a_newer_schema_is_refused_with_the_file_named(laptops, tmp_path):
    a, b, _, _ = laptops
    with sqlite3.connect(a) as db:
        db.execute(f"PRAGMA user_version={VERSION + 1}")
    before = b.read_bytes()
    with pytest.raises(WorkbenchError, match=f"{a} has schema {VERSION + 1}, newer than this workbench knows"):
        merge_stores([a], b)
    assert b.read_bytes() == before


def test_an_older_store_is_merged_from_a_migrated_copy_and_left_as_it_was(laptops, tmp_path):
    a, b, runs_a, _ = laptops
    with sqlite3.connect(a) as db:  # Anna's store as migration 8 left it (before the judge's columns, 9,
        db.execute("DROP TABLE judge_faults")  # and the runs' server addresses, 10)
        for table in ("annotations", "annotation_log"):
            for column in ("prompt_version", "suggested_by", "suggested_tag"):
                db.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
        db.execute("ALTER TABLE runs DROP COLUMN servers")
        db.execute("PRAGMA user_version=8")
    before = a.read_bytes()
    summary = merge_stores([a], b)
    assert a.read_bytes() == before
    assert summary.sources[0].runs_added == 1 and summary.sources[0].added["annotations"] == 3
    with RunStore(b, read_only=True) as store:
        assert {r.run_id for r in store.runs()} >= set(runs_a)


def test_the_cli_merges_and_refuses_bad_input_in_one_line(laptops, tmp_path):
    from workbench.cli import main
    a, b, _, _ = laptops
    into = tmp_path / "merged.sqlite"
    result = CliRunner().invoke(main, ["store", "merge", str(a), str(b), "--into", str(into)])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == f"merged 2 store(s) into {into} (new)"
    assert result.output.splitlines()[2].startswith(f"  {b}: runs 1 added, 1 already there; predictions 21 added")
    (tmp_path / "notes.txt").write_text("not a store", encoding="utf-8")
    foreign = tmp_path / "foreign.sqlite"
    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE birds (name TEXT)")
    for source, message in ((tmp_path / "missing.sqlite", "no store at"), (tmp_path / "notes.txt", "not an SQLite"),
                            (foreign, "another application's"), (into, "cannot be merged into itself")):
        result = CliRunner().invoke(main, ["store", "merge", str(source), "--into", str(into)])
        assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output


def test_every_table_of_the_schema_has_a_merge_rule(store):
    """A table added by a later migration must say how it merges (workbench.store.merge_tables)."""
    from workbench.store.merge_tables import LOG_TABLE, NOT_MERGED, RULES
    tables = {t for t, in store.db.execute("SELECT name FROM sqlite_master WHERE type='table'")} - {"sqlite_sequence"}
    assert tables == {r.table for r in RULES} | {LOG_TABLE, *NOT_MERGED}


def test_a_source_whose_rows_do_not_fit_together_is_refused_as_damaged(laptops, tmp_path):
    a, b, runs_a, _ = laptops
    with sqlite3.connect(a) as db:  # predictions left of a run whose record is gone (foreign keys off)
        db.execute("DELETE FROM runs WHERE run_id=?", (runs_a[1],))
    before = b.read_bytes()
    with pytest.raises(WorkbenchError, match=f"cannot merge {a}: its rows do not fit together .* damaged"):
        merge_stores([a], b)
    assert b.read_bytes() == before


def test_a_differing_cached_upos_tag_keeps_the_destinations_and_is_counted(laptops, tmp_path):
    a, b, _, _ = laptops
    with sqlite3.connect(a) as db:  # another tagger version on Anna's laptop read sv-1's spans otherwise
        changed = db.execute("UPDATE span_upos SET upos='X' WHERE doc_id='sv-1'").rowcount
    summary = merge_stores([a], b)
    assert changed == 7 and summary.sources[0].upos_kept == 7 and "7 differing cached UPOS" in summary.lines()[1]
    with sqlite3.connect(b) as db:
        assert db.execute("SELECT COUNT(*) FROM span_upos WHERE upos='X'").fetchone()[0] == 0
