"""A store restored from `sqlite3 A .dump | sqlite3 B`, or any store whose user_version is lower than
its tables (issue 37 item 3): the schema is read from the tables (workbench.store.schema.
tables_version), so such a store opens, gets only what it lacks, and works; one the workbench
cannot read says so in one line. The dump is made by Python's Connection.iterdump(), which
prints what the sqlite3 shell's .dump prints, so CI needs no sqlite3 program; like .dump, it
does not carry user_version or application_id."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing

import pytest

from tests.helpers.entry_point import wb, wb_ok
from tests.helpers.store import generated_run
from workbench.annotation.storage import AnnotationStore
from workbench.infra.errors import WorkbenchError
from workbench.store import RunStore
from workbench.store.annotations import Annotation
from workbench.store.schema import MIGRATIONS, VERSION

CORPUS = {"doc_id": "d1", "text": "Anna Berg lives in Oslo. Anna works in Bergen.", "lang": "en",
          "label": [[0, 9, "PERSON"], [19, 23, "LOC"], [39, 45, "LOC"]]}


def restored(source, target):
    """`sqlite3 SOURCE .dump | sqlite3 TARGET`."""
    with closing(sqlite3.connect(source)) as db:
        script = "\n".join(db.iterdump())
    with closing(sqlite3.connect(target)) as out:
        out.executescript(script)
    return target


def rows(path) -> dict[str, list[tuple]]:
    """Every table's rows, sorted (run_leases included)."""
    with closing(sqlite3.connect(path)) as db:
        tables = [t for t, in db.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
        return {t: sorted(db.execute(f'SELECT * FROM "{t}"').fetchall(), key=repr) for t in tables}


def pragma(path, name) -> int:
    with closing(sqlite3.connect(path)) as db:
        return db.execute(f"PRAGMA {name}").fetchone()[0]


def undo_migrations_after(path, version: int) -> None:
    """The store as migration `version` left it: what every later migration added, dropped."""
    with closing(sqlite3.connect(path)) as db:
        for migration in reversed(MIGRATIONS[version:]):
            for addition in reversed(migration.additions):
                if addition.kind == "column":
                    table, column = addition.name.split(".")
                    db.execute(f'ALTER TABLE "{table}" DROP COLUMN "{column}"')
                else:
                    db.execute(f'DROP {addition.kind.upper()} "{addition.name}"')
        db.execute(f"PRAGMA user_version={version}")
        db.commit()


@pytest.fixture(scope="module")
def dumped(tmp_path_factory):
    """A store the CLI filled (a run, as `generate` stores it) and annotated, and its restored dump."""
    folder = tmp_path_factory.mktemp("dump")
    (folder / "t.jsonl").write_text(json.dumps(CORPUS) + "\n", encoding="utf-8")
    original = folder / "A.sqlite"
    out = wb_ok("generate", "-c", folder / "t.jsonl", "-g", "random", "--no-progress", "--tagger", "spacy",
                store=original)
    run_id = out.split()[1]
    with RunStore(original) as store:  # annotation_log is AUTOINCREMENT: the dump carries sqlite_sequence too
        AnnotationStore(store).save_many([Annotation(run_id, "d1", 0, "anna", "NO_ERROR")])
    return folder, original, run_id


def test_a_restored_dump_works_with_runs_generate_and_store_merge(dumped, tmp_path):
    folder, original, run_id = dumped
    store = restored(original, tmp_path / "B.sqlite")
    assert pragma(store, "user_version") == 0 and pragma(store, "application_id") == 0  # what .dump leaves

    listed = wb("runs", store=store)
    assert listed.returncode == 0, listed.stderr
    assert run_id in listed.stdout and "complete" in listed.stdout and "Traceback" not in listed.stderr
    # Opened writable, it now carries the version and the mark; nothing else changed.
    assert (pragma(store, "user_version"), pragma(store, "application_id")) == (VERSION, 0x50574231)
    assert rows(store) == rows(original)

    # The same generate command finds its run (its id survived the dump); another seed adds one.
    again = wb_ok("generate", "-c", folder / "t.jsonl", "-g", "random", "--no-progress", "--tagger", "spacy",
                  store=store)
    assert again.split()[1] == run_id and "complete" in again.split("\n")[0]
    other = wb_ok("generate", "-c", folder / "t.jsonl", "-g", "random", "--seed", "7", "--no-progress",
                  "--tagger", "spacy", store=store)
    assert other.split()[1] != run_id

    # store merge: the migrated store as destination, and a fresh restored dump (user_version 0,
    # never opened) as source, which is only read.
    fresh = restored(original, tmp_path / "fresh.sqlite")
    before = fresh.read_bytes()
    merged = wb("store", "merge", fresh, "--into", store)
    assert merged.returncode == 0, merged.stderr
    assert "runs 0 added, 1 already there" in merged.stdout
    assert fresh.read_bytes() == before and pragma(fresh, "user_version") == 0
    into = wb("store", "merge", store, "--into", tmp_path / "C.sqlite")
    assert into.returncode == 0, into.stderr
    assert {run_id, other.split()[1]} <= set(wb_ok("runs", "--ids", store=tmp_path / "C.sqlite").split())


def test_a_restored_dump_reads_read_only_without_writing(dumped, tmp_path):
    _, original, run_id = dumped
    store = restored(original, tmp_path / "B.sqlite")
    before = store.read_bytes()
    listed = wb("runs", store=f"file:{store}?mode=ro")
    assert listed.returncode == 0 and run_id in listed.stdout, listed.stderr
    assert store.read_bytes() == before  # a current schema as it is: nothing to write


@pytest.mark.parametrize("recorded", [0, 1, 5, VERSION - 1])
def test_a_store_whose_user_version_is_behind_its_tables_opens_as_it_is(tmp_path, tiny_corpus, recorded):
    path = tmp_path / "behind.sqlite"
    with RunStore(path) as store:
        run = generated_run(store, tiny_corpus)
    with closing(sqlite3.connect(path)) as db, db:
        # A value migration 2's backfill would overwrite from the signature string, were it run again.
        db.execute("UPDATE runs SET seed=99 WHERE run_id=?", (run.run_id,))
        db.execute(f"PRAGMA user_version={recorded}")
    before = rows(path)
    with RunStore(path) as store:
        assert store.get_run(run.run_id).seed == 99
    assert pragma(path, "user_version") == VERSION and rows(path) == before


def test_a_dump_of_an_older_store_gets_only_the_later_migrations(tmp_path, tiny_corpus):
    """A dump of a store at schema 8 (before the judge's columns and table): those are added, the
    rest kept, and a person's annotation reads with the new columns' defaults."""
    path = tmp_path / "v8.sqlite"
    with RunStore(path) as store:
        run = generated_run(store, tiny_corpus)
        AnnotationStore(store).save_many([Annotation(run.run_id, "en-1", 0, "anna", "POS")])
    undo_migrations_after(path, 8)
    store_path = restored(path, tmp_path / "restored.sqlite")
    with RunStore(store_path) as store:
        [note] = AnnotationStore(store).annotations()
        assert (note.tag, note.annotator, note.prompt_version, note.suggested_by) == ("POS", "anna", "", "")
        assert store.get_run(run.run_id) is not None
        tables = {t for t, in store.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert "judge_faults" in tables


def test_a_restored_dump_with_a_gap_is_refused_in_one_line(dumped, tmp_path):
    """A column of a migration its tables show applied is missing (a hand edit): damage, never
    re-added empty; said in one line naming the file and the column, and nothing is changed."""
    _, original, _ = dumped
    store = restored(original, tmp_path / "gap.sqlite")
    with closing(sqlite3.connect(store)) as db, db:
        db.execute("ALTER TABLE runs DROP COLUMN seed")
    before = rows(store)
    result = wb("runs", store=store)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    [line] = result.stderr.strip().splitlines()
    assert str(store) in line and "column runs.seed missing" in line and "damaged" in line
    assert rows(store) == before and pragma(store, "user_version") == 0
    with pytest.raises(WorkbenchError, match="column runs.seed missing"):
        RunStore(store)
