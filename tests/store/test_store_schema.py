"""The store's schema version and migrations, and stores that are damaged, foreign, newer,
read-only, locked or on a full disk (issue 10 items 7, 11, 21; issue 11 item 3)."""

from __future__ import annotations

import json
import sqlite3

import pytest

from tests.helpers.entry_point import wb
from tests.helpers.store import generated_run
from workbench.infra.errors import WorkbenchError
from workbench.store import RunStore, StoredPrediction
from workbench.store.schema import APPLICATION_ID, VERSION

# The schema of workbench/store.py and workbench/annotation/storage.py before schema
# versions (commit 7236f56), verbatim: a store written by that code has user_version 0.
OLD_STORE_SCHEMA = """
CREATE TABLE IF NOT EXISTS corpora (
    corpus_hash TEXT PRIMARY KEY, name TEXT NOT NULL, source TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
    corpus_hash TEXT NOT NULL REFERENCES corpora, doc_id TEXT NOT NULL, position INTEGER NOT NULL,
    lang TEXT NOT NULL, text TEXT NOT NULL, meta TEXT NOT NULL,
    PRIMARY KEY (corpus_hash, doc_id));
CREATE TABLE IF NOT EXISTS spans (
    corpus_hash TEXT NOT NULL, doc_id TEXT NOT NULL, span_index INTEGER NOT NULL,
    start INTEGER NOT NULL, "end" INTEGER NOT NULL, text TEXT NOT NULL, label TEXT NOT NULL,
    entity_id TEXT NOT NULL, mask INTEGER NOT NULL,
    PRIMARY KEY (corpus_hash, doc_id, span_index));
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY, signature TEXT NOT NULL, corpus_hash TEXT NOT NULL REFERENCES corpora,
    corpus_name TEXT NOT NULL, generator TEXT NOT NULL, model TEXT NOT NULL, mode TEXT NOT NULL,
    upos_filter INTEGER NOT NULL, options TEXT NOT NULL, config TEXT NOT NULL, versions TEXT NOT NULL,
    status TEXT NOT NULL, n_slots INTEGER NOT NULL, created REAL NOT NULL, finished REAL,
    source TEXT NOT NULL DEFAULT 'generated');
CREATE TABLE IF NOT EXISTS span_upos (
    corpus_hash TEXT NOT NULL, tagger TEXT NOT NULL, doc_id TEXT NOT NULL, span_index INTEGER NOT NULL,
    upos TEXT, PRIMARY KEY (corpus_hash, tagger, doc_id, span_index));
CREATE TABLE IF NOT EXISTS predictions (
    run_id TEXT NOT NULL REFERENCES runs, doc_id TEXT NOT NULL, span_index INTEGER NOT NULL,
    pseudonym TEXT NOT NULL, candidates TEXT NOT NULL, rank INTEGER, pick_upos TEXT,
    failed INTEGER NOT NULL, note TEXT NOT NULL, seconds REAL NOT NULL, requests INTEGER NOT NULL,
    PRIMARY KEY (run_id, doc_id, span_index));
"""
OLD_ANNOTATION_SCHEMA = """
CREATE TABLE IF NOT EXISTS annotations (
    run_id TEXT NOT NULL, doc_id TEXT NOT NULL, span_index INTEGER NOT NULL, annotator TEXT NOT NULL,
    tag TEXT NOT NULL, note TEXT NOT NULL, source TEXT NOT NULL, created REAL NOT NULL, updated REAL NOT NULL,
    PRIMARY KEY (run_id, doc_id, span_index, annotator));
CREATE TABLE IF NOT EXISTS annotation_log (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL, doc_id TEXT NOT NULL,
    span_index INTEGER NOT NULL, annotator TEXT NOT NULL, tag TEXT NOT NULL, note TEXT NOT NULL,
    source TEXT NOT NULL, saved REAL NOT NULL);
CREATE TABLE IF NOT EXISTS annotation_sample_info (
    sample TEXT PRIMARY KEY, recipe TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS annotation_samples (
    sample TEXT NOT NULL REFERENCES annotation_sample_info, position INTEGER NOT NULL,
    run_id TEXT NOT NULL, doc_id TEXT NOT NULL, span_index INTEGER NOT NULL,
    PRIMARY KEY (sample, position), UNIQUE (sample, run_id, doc_id, span_index));
"""
OLD_SIGNATURE = ("corpus=tiny@{hash12}|gen=random|model=-|mode=maskL|upos=off|window=1|seed=13|topk=10|"
                 "leak=on|tagger=spacy:en=en_ud|v=python:3.11.7,workbench:0.1.0")


def _old_main_store(path, tiny_corpus, *, annotations: bool = True):
    """A store as today's main writes it: old tables, positional rows, user_version 0."""
    db = sqlite3.connect(path)
    db.executescript(OLD_STORE_SCHEMA + (OLD_ANNOTATION_SCHEMA if annotations else ""))
    h = tiny_corpus.content_hash
    db.execute("INSERT INTO corpora VALUES (?,?,?,?)", (h, tiny_corpus.name, tiny_corpus.source, 1.0))
    db.executemany("INSERT INTO documents VALUES (?,?,?,?,?,?)",
                   [(h, d.doc_id, i, d.lang, d.text, "{}") for i, d in enumerate(tiny_corpus.documents)])
    db.executemany("INSERT INTO spans VALUES (?,?,?,?,?,?,?,?,?)",
                   [(h, d.doc_id, i, s.start, s.end, s.text, s.label, s.entity_id, int(s.mask))
                    for d in tiny_corpus.documents for i, s in enumerate(d.spans)])
    db.execute("INSERT INTO runs VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
               ("abcdef0123456789", OLD_SIGNATURE.format(hash12=h[:12]), h, tiny_corpus.name, "random", "-", "maskL",
                0, json.dumps({"mode": "maskL"}), "{}", json.dumps({"python": "3.11.7", "workbench": "0.1.0"}),
                "complete", 1, 2.0, 3.0,
                "generated"))
    db.execute("INSERT INTO predictions VALUES (?,?,?,?,?,?,?,?,?,?,?)",
               ("abcdef0123456789", "en-1", 0, "Per Holm", json.dumps(["Per Holm"]), 0, None, 0, "", 0.5, 1))
    if annotations:
        db.execute("INSERT INTO annotations VALUES (?,?,?,?,?,?,?,?,?)",
                   ("abcdef0123456789", "en-1", 0, "ann", "ok", "", "api", 4.0, 4.0))
    db.commit()
    assert db.execute("PRAGMA user_version").fetchone()[0] == 0
    db.close()


@pytest.mark.parametrize("annotations", [True, False])
def test_a_store_written_by_the_previous_version_opens_and_migrates(tmp_path, tiny_corpus, annotations):
    path = tmp_path / "old.sqlite"
    _old_main_store(path, tiny_corpus, annotations=annotations)
    store = RunStore(path)
    assert store.db.execute("PRAGMA user_version").fetchone()[0] == VERSION
    [run] = store.runs()
    old_signature = OLD_SIGNATURE.format(hash12=tiny_corpus.content_hash[:12])
    assert run.signature == old_signature and run.status == "complete"
    # The signature's fields became columns, read once from the old string by the migration.
    assert (run.tagger, run.window, run.seed, run.top_k, run.leak_guard) == ("spacy:en=en_ud", 1, 13, 10, True)
    assert run.signature_record.render() == old_signature
    assert store.resolve_run("abcdef").run_id == "abcdef0123456789"
    assert [p.pseudonym for p in store.predictions(run.run_id)] == ["Per Holm"]
    assert store.load_corpus(tiny_corpus.content_hash) == tiny_corpus
    from workbench.annotation.storage import AnnotationStore
    notes = AnnotationStore(store)
    assert [a.tag for a in notes.annotations()] == (["ok"] if annotations else [])
    store.close()
    again = RunStore(path)  # a second open finds nothing to do
    assert again.runs() == [run]


def test_a_new_store_carries_the_version_and_the_workbench_mark(tmp_path):
    store = RunStore(tmp_path / "odd ?#% name.sqlite")
    assert (tmp_path / "odd ?#% name.sqlite").exists()
    assert store.db.execute("PRAGMA user_version").fetchone()[0] == VERSION
    assert store.db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID


def test_a_store_from_a_newer_version_is_refused(tmp_path):
    path = tmp_path / "newer.sqlite"
    RunStore(path).close()
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version={VERSION + 1}")
    db.close()
    with pytest.raises(WorkbenchError, match="newer version of the workbench"):
        RunStore(path)


def test_another_applications_database_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "crm.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
    db.execute("INSERT INTO customers (name) VALUES ('Ada')")
    db.commit()
    db.close()
    with pytest.raises(WorkbenchError, match="another application's SQLite database"):
        RunStore(path)
    db = sqlite3.connect(path)
    assert [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")] == ["customers"]
    result = wb("runs", "--store", path)
    assert result.returncode == 2 and "another application's" in result.stderr and "Traceback" not in result.stderr


def test_a_dropped_runs_table_is_never_recreated(tmp_path, tiny_corpus):
    path = tmp_path / "dropped.sqlite"
    store = RunStore(path)
    generated_run(store, tiny_corpus)
    store.close()
    db = sqlite3.connect(path)
    db.execute("DROP TABLE runs")
    db.commit()
    db.close()
    with pytest.raises(WorkbenchError, match="damaged: table.* runs missing"):
        RunStore(path)
    db = sqlite3.connect(path)
    assert not db.execute("SELECT 1 FROM sqlite_master WHERE name='runs'").fetchone()
    assert db.execute("SELECT COUNT(*) FROM predictions").fetchone()[0] == tiny_corpus.n_slots


def _filled_store(path, tiny_corpus):
    store = RunStore(path)
    run = generated_run(store, tiny_corpus)
    # Enough pages that the middle of the file holds table data.
    store.add_predictions(run.run_id, [StoredPrediction("filler", i, f"name {i} " * 40, ("x",), 0, None, False, "",
                                                        0.1, 1) for i in range(1500)])
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    return path.read_bytes()


@pytest.mark.parametrize("damage", ["text", "truncated", "garbage-mid-file", "empty-header"])
def test_damaged_or_unrelated_files_are_refused_in_words(tmp_path, tiny_corpus, damage):
    path = tmp_path / "runs.sqlite"
    if damage == "text":
        path.write_text("doc_id,text\n1,hello\n")
    else:
        good = _filled_store(path, tiny_corpus)
        if damage == "truncated":
            path.write_bytes(good[:100])
        elif damage == "empty-header":
            path.write_bytes(good[:4096 * 3])  # pages cut off after the header
        else:
            middle = len(good) // 2
            path.write_bytes(good[:middle] + bytes(range(256)) * 32 + good[middle + 8192:])
    before = path.read_bytes()
    with pytest.raises(WorkbenchError) as err:
        store = RunStore(path)
        generated_run(store, tiny_corpus, seed=99)  # writing must not go ahead either
    assert str(path) in str(err.value)
    expected = {"text": "not a run store", "truncated": "truncated", "empty-header": "truncated",
                "garbage-mid-file": "damaged"}[damage]
    assert expected in str(err.value)
    assert path.read_bytes() == before  # nothing written into it
    result = wb("runs", "--store", path)
    assert result.returncode == 2 and "Traceback" not in result.stderr and str(path) in result.stderr


def test_read_commands_never_create_a_store(tmp_path):
    from click.testing import CliRunner

    from workbench.cli import main
    typo = tmp_path / "typo.sqlite"
    annotations = tmp_path / "a.jsonl"
    annotations.write_text("")
    # Every command that reads stored runs (the annotations and privacy attacks too, which
    # write results but have nothing to work on in a new store) names the path and stops.
    # In this process (fifteen entry points would pay the imports fifteen times); an exception
    # that escaped would exit 1 here, not 2. The first runs through the console script as a user's does.
    first = wb("runs", "--store", typo)
    assert first.returncode == 2 and "no run store at" in first.stderr and "Traceback" not in first.stderr
    runner = CliRunner()
    for args in (["runs"], ["show", "abc"], ["export", "abc", "--format", "csv", "-o", tmp_path / "x.csv"],
                 ["report", "abc", "--out", tmp_path / "report"], ["run-report", "abc"], ["dashboard"],
                 ["annotations", "status"], ["annotations", "agreement"], ["annotations", "sample", "s", "-r", "abc"],
                 ["annotations", "export", "-o", tmp_path / "y.jsonl"], ["annotations", "import", annotations],
                 ["annotations", "table6", "-o", tmp_path / "t6"], ["privacy", "reid", "abc"],
                 ["privacy", "infer", "abc"], ["privacy", "disclosure"]):
        result = runner.invoke(main, [*map(str, args), "--store", str(typo)])
        assert result.exit_code == 2, (args, result.exception, result.output)
        assert "no run store at" in result.stderr and "typo.sqlite" in result.stderr, args
    assert not typo.exists()


def test_a_table_missing_a_column_is_refused_before_reading_empty_results(tmp_path, tiny_corpus):
    path = tmp_path / "cols.sqlite"
    store = RunStore(path)
    run = generated_run(store, tiny_corpus)
    store.close()
    db = sqlite3.connect(path)
    db.execute("ALTER TABLE predictions DROP COLUMN pick_upos")
    db.commit()
    db.close()
    result = wb("export", run.run_id[:8], "--format", "csv", "-o", tmp_path / "x.csv", "--store", path)
    assert result.returncode == 2 and "table predictions lacks column(s) pick_upos" in result.stderr
    assert not (tmp_path / "x.csv").exists()


def test_an_empty_file_is_not_turned_into_a_store_by_a_read_command(tmp_path):
    path = tmp_path / "empty.sqlite"
    path.touch()
    result = wb("runs", "--store", path)
    assert result.returncode == 2 and "empty file, not a run store" in result.stderr
    assert path.stat().st_size == 0
    assert RunStore(path).runs() == []  # a writing command may start a store in it


def _read_only_variants(path):
    yield RunStore(path, read_only=True)
    yield RunStore(f"file:{path}?mode=ro")


def test_a_read_only_store_can_be_read_and_refuses_writes_in_words(tmp_path, tiny_corpus, monkeypatch):
    path = tmp_path / "ro.sqlite"
    store = RunStore(path)
    run = generated_run(store, tiny_corpus)
    store.close()
    before = path.read_bytes()
    # Tests run as root, where chmod 0o444 does not stop writes: the read-only path is
    # taken through the flag, the URI, and a file os.access says is not writable.
    import workbench.store.file as store_module
    monkeypatch.setattr(store_module.os, "access", lambda p, mode: False)
    variants = [*_read_only_variants(path), RunStore(path)]
    monkeypatch.undo()
    for ro in variants:
        assert ro.read_only
        assert [r.run_id for r in ro.runs()] == [run.run_id]
        assert ro.count_predictions(run.run_id) == tiny_corpus.n_slots
        from workbench.exchange.exporters import export_run
        assert export_run(ro, run.run_id, "intact", tmp_path / "out.json").exists()
        with pytest.raises(WorkbenchError, match="read-only"):
            ro.finish_run(run.run_id)
        with pytest.raises(WorkbenchError, match="read-only"):
            generated_run(ro, tiny_corpus, seed=7)
        ro.close()
    assert path.read_bytes() == before
    uri = f"file:{path}?mode=ro"
    listed = wb("runs", "--store", uri)
    assert listed.returncode == 0 and run.run_id in listed.stdout
    shown = wb("show", run.run_id[:8], "en-1", "--store", uri)
    assert shown.returncode == 0 and "│" in shown.stdout
    exported = wb("export", run.run_id[:8], "--format", "csv", "-o", tmp_path / "ro.csv", "--store", uri)
    assert exported.returncode == 0 and (tmp_path / "ro.csv").exists()


def test_a_write_lock_held_elsewhere_is_reported_in_words(tmp_path, tiny_corpus):
    path = tmp_path / "locked.sqlite"
    RunStore(path).close()
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process in the middle of a write
    try:
        store = RunStore(path, timeout=0.2)
        with pytest.raises(WorkbenchError, match="locked by another process"):
            store.save_corpus(tiny_corpus)
    finally:
        other.execute("ROLLBACK")
        other.close()
    store.save_corpus(tiny_corpus)  # free again: the same call goes through
    assert store.corpora()[0][0] == tiny_corpus.content_hash


def test_a_full_disk_is_reported_the_store_stays_intact_and_resuming_works(tmp_path, tiny_corpus):
    path = tmp_path / "full.sqlite"
    store = RunStore(path)
    run = generated_run(store, tiny_corpus)
    pages = store.db.execute("PRAGMA page_count").fetchone()[0]
    store.db.execute(f"PRAGMA max_page_count={pages}")  # the disk is full from here on
    big = [StoredPrediction("en-1", i, "x" * 200_000, ("x",), 0, None, False, "", 0.1, 1) for i in range(100, 120)]
    with pytest.raises(WorkbenchError, match="full"):
        store.add_predictions(run.run_id, big)
    assert store.count_predictions(run.run_id) == tiny_corpus.n_slots
    assert store.db.execute("PRAGMA quick_check").fetchone()[0] == "ok"
    store.db.execute(f"PRAGMA max_page_count={pages * 1000}")  # space freed
    store.add_predictions(run.run_id, big)
    assert store.count_predictions(run.run_id) == tiny_corpus.n_slots + len(big)
