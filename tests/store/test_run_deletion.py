"""Deleting runs: everything stored for a run goes, in one transaction; annotations only when asked;
`workbench runs --delete` asks first, or needs --yes (issue 15 item 6)."""

from __future__ import annotations

import socket

import pytest

from tests.helpers.entry_point import wb
from tests.helpers.store import generated_run, import_replacements
from workbench.annotation.sampling import SampleRecipe, draw_sample
from workbench.annotation.storage import Annotation, AnnotationStore
from workbench.infra.errors import WorkbenchError
from workbench.store import RunStore
from workbench.store.hidden_runs import hidden_runs, set_hidden
from workbench.store.run_deletion import delete_runs, plan_deletion
from workbench.store.run_reports import run_reports


def _rows(store, run_id):
    """Rows that mention the run, per table with a run_id column."""
    tables = [t for t, in store.db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    return {t: n for t in tables
            if any(c[1] == "run_id" for c in store.db.execute(f'PRAGMA table_info("{t}")'))
            and (n := store.db.execute(f'SELECT COUNT(*) FROM "{t}" WHERE run_id=?', (run_id,)).fetchone()[0])}


def _privacy_rows(store, run_id):
    store.db.execute("INSERT INTO reid_results (run_id, attack_key, doc_id, attacker, config, background, "
                     "background_sha256, text_sha256, n_candidates, created) VALUES (?,?,?,?,?,?,?,?,?,?)",
                     (run_id, "k", "en-1", "retrieval", "{}", "bg", "x", "y", 3, 0.0))
    store.db.execute("INSERT INTO inference_results (run_id, attack_key, doc_id, span_index, attacker, config, "
                     "input_sha256, guesses, disclosed, note, requests, seconds, created) "
                     "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", (run_id, "k", "en-1", 0, "mlm", "{}", "z", "[]", 0, "", 0,
                                                           0.0, 0.0))


def test_deleting_a_run_removes_every_row_stored_for_it_and_keeps_the_other_run(store, tiny_corpus, tmp_path):
    keep = generated_run(store, tiny_corpus, seed=1)
    gone = import_replacements(store, tmp_path, tiny_corpus)  # an import: it has an alignment report
    _privacy_rows(store, gone.run_id)
    set_hidden(store, [gone.run_id])
    assert {"predictions", "runs", "reid_results", "inference_results", "run_reports", "hidden_runs"} <= set(
        _rows(store, gone.run_id))
    kept_rows = _rows(store, keep.run_id)

    planned = plan_deletion(store, [gone.run_id[:8]])  # a prefix, as other commands take it
    assert planned.rows["predictions"] == tiny_corpus.n_slots and planned.rows["runs"] == 1
    assert "corpora" not in planned.rows  # the kept run still uses the corpus snapshot
    assert store.get_run(gone.run_id) is not None  # planning writes nothing

    done = delete_runs(store, [gone.run_id[:8]])
    assert [r.run_id for r in done.runs] == [gone.run_id]
    assert _rows(store, gone.run_id) == {} and run_reports(store, gone.run_id) == {}
    assert hidden_runs(store) == set()
    assert _rows(store, keep.run_id) == kept_rows
    assert store.load_corpus(keep.corpus_hash).n_slots == tiny_corpus.n_slots


def test_the_last_run_of_a_corpus_takes_the_corpus_snapshot_with_it(store, tiny_corpus):
    run = generated_run(store, tiny_corpus)
    planned = plan_deletion(store, [run.run_id])
    assert planned.rows["documents"] == len(tiny_corpus.documents) and planned.rows["corpora"] == 1
    delete_runs(store, [run.run_id])
    assert store.runs() == [] and store.corpora() == []
    for table in ("documents", "spans", "span_upos"):
        assert store.db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] == 0, table
    again = generated_run(store, tiny_corpus)  # the same command stores it again, same id
    assert again.run_id == run.run_id and again.status == "complete"


def test_a_failure_half_way_leaves_everything_in_place(store, tiny_corpus, monkeypatch):
    run = generated_run(store, tiny_corpus)
    before = _rows(store, run.run_id)
    import workbench.store.run_deletion as deletion
    original = deletion.CORPUS_TABLES
    monkeypatch.setattr(deletion, "CORPUS_TABLES", original + ("no_such_table",))
    with pytest.raises(Exception, match="no_such_table"):
        delete_runs(store, [run.run_id])
    assert _rows(store, run.run_id) == before and store.corpora()


def test_annotated_runs_are_kept_unless_asked_and_samples_keep_their_order(store, tiny_corpus):
    a = generated_run(store, tiny_corpus, seed=1)
    b = generated_run(store, tiny_corpus, seed=2)
    notes = AnnotationStore(store)
    items = draw_sample(store, SampleRecipe((b.run_id, a.run_id), 3, "span", 0))  # b first: a's items move up
    notes.create_sample("s1", items, {})
    notes.create_sample("only-b", [i for i in items if i.run_id == b.run_id], {})
    first_a = next(i for i in items if i.run_id == a.run_id)
    notes.save(Annotation(first_a.run_id, first_a.doc_id, first_a.span_index, "anna", "NO_ERROR"))
    with pytest.raises(WorkbenchError, match="0 error annotation.*only-b, s1.*--with-annotations"):
        delete_runs(store, [b.run_id])  # b is in samples even though a holds the annotation
    assert store.get_run(b.run_id) is not None

    done = delete_runs(store, [b.run_id], with_annotations=True)
    assert done.emptied_samples == ("only-b",)
    assert [s for s, _, _ in notes.samples()] == ["s1"]
    left = notes.sample("s1")
    assert left == [i for i in items if i.run_id == a.run_id]  # same order, positions 0..n-1
    assert notes.resume_position("s1", "anna") == 1  # anna's tag still counts at its new position
    assert len(notes.annotations()) == 1


def test_a_run_being_generated_elsewhere_is_not_deleted(store, tiny_corpus):
    run = generated_run(store, tiny_corpus)
    store.db.execute("INSERT INTO run_leases VALUES (?, 1, 'another-host.example', 0, 0)", (run.run_id,))
    with pytest.raises(WorkbenchError, match="being generated by process 1 on another-host"):
        delete_runs(store, [run.run_id])
    store.db.execute("UPDATE run_leases SET host=?, pid=?", (socket.gethostname(), 2**22 + 12345))  # a dead pid here
    delete_runs(store, [run.run_id])
    assert store.get_run(run.run_id) is None and store.lease(run.run_id) is None


def test_runs_delete_asks_unless_yes_and_refuses_without_a_terminal(tmp_path, tiny_corpus):
    path = tmp_path / "runs.sqlite"
    with RunStore(path) as s:
        keep, gone = generated_run(s, tiny_corpus, seed=1), generated_run(s, tiny_corpus, seed=2)
    result = wb("runs", "--delete", gone.run_id[:8], "--store", path)  # stdin is not a terminal
    assert result.returncode == 2 and "--yes" in result.stderr and "Traceback" not in result.stderr
    assert "predictions:" in result.stdout  # says what would go
    with RunStore(path) as s:
        assert s.get_run(gone.run_id) is not None
    result = wb("runs", "--delete", gone.run_id[:8], "--yes", "--store", path)
    assert result.returncode == 0, result.stderr
    assert f"deleted run {gone.run_id}" in result.stdout
    with RunStore(path) as s:
        assert [r.run_id for r in s.runs()] == [keep.run_id]
    result = wb("runs", "--delete", "zzzz", "--yes", "--store", path)
    assert result.returncode == 2 and "no run matching 'zzzz'" in result.stderr


def test_runs_has_a_header_row(tmp_path, tiny_corpus):
    path = tmp_path / "runs.sqlite"
    with RunStore(path) as s:
        run = generated_run(s, tiny_corpus)
    lines = wb("runs", "--store", path).stdout.splitlines()
    header = lines[0].split()
    assert header[:3] == ["run_id", "corpus", "generator"] and "status" in header
    assert lines[1].startswith(run.run_id)
    # the columns line up: each header word starts where its column starts
    assert lines[1].index(" random ") + 1 == lines[0].index("generator")


def test_deleting_the_last_run_of_a_corpus_while_another_run_of_it_starts_keeps_the_snapshot(tmp_path, tiny_corpus):
    """Issue 24 item 15: `runs --delete` (a real process) between a generation's saving of the corpus
    snapshot and its storing of the run made create_run fail with "FOREIGN KEY constraint failed".
    The generation (a thread, on its own connection to the same file) is held exactly there."""
    import threading
    path = tmp_path / "runs.sqlite"
    with RunStore(path) as s:
        old = generated_run(s, tiny_corpus, seed=1)
        upos_rows = s.db.execute("SELECT COUNT(*) FROM span_upos").fetchone()[0]
    starting = RunStore(path)
    saved, go_on, outcome = threading.Event(), threading.Event(), {}
    save_corpus = starting.save_corpus

    def save_then_wait(corpus):
        save_corpus(corpus)
        saved.set()
        go_on.wait(120)
    starting.save_corpus = save_then_wait

    def generate():
        try:
            outcome["run"] = generated_run(starting, tiny_corpus, seed=2)
        except BaseException as exc:  # noqa: BLE001 - handed to the test's thread
            outcome["error"] = exc
    thread = threading.Thread(target=generate)
    thread.start()
    try:
        assert saved.wait(120)
        result = wb("runs", "--delete", old.run_id, "--yes", "--store", path)
    finally:
        go_on.set()
        thread.join(120)
    starting.close()
    assert result.returncode == 0, result.stderr
    assert "corpus snapshots kept: process" in result.stdout and f"deleted run {old.run_id}" in result.stdout
    assert "error" not in outcome, outcome.get("error")
    with RunStore(path) as s:
        new = outcome["run"]
        assert [r.run_id for r in s.runs()] == [new.run_id] and new.status == "complete"
        assert s.load_corpus(new.corpus_hash).n_slots == tiny_corpus.n_slots
        assert s.db.execute("SELECT COUNT(*) FROM span_upos").fetchone()[0] == upos_rows  # its originals' UPOS
        delete_runs(s, [new.run_id])  # nobody starting now: the snapshot goes with its last run
        assert s.corpora() == [] and s.db.execute("SELECT COUNT(*) FROM span_upos").fetchone()[0] == 0


def test_a_dead_process_lease_on_an_unstored_run_does_not_keep_the_snapshot(store, tiny_corpus):
    run = generated_run(store, tiny_corpus)
    store.db.execute("INSERT INTO run_leases VALUES ('never-stored', ?, ?, 0, 0)",
                     (2**22 + 12345, socket.gethostname()))  # a pid no process has here
    planned = plan_deletion(store, [run.run_id])
    assert planned.starting == () and planned.rows["corpora"] == 1
    delete_runs(store, [run.run_id])
    assert store.corpora() == []
    store.db.execute("UPDATE run_leases SET host='another-host.example'")  # elsewhere: cannot tell, so kept
    again = generated_run(store, tiny_corpus)
    assert plan_deletion(store, [again.run_id]).starting == ("4206649 on another-host.example",)
    delete_runs(store, [again.run_id])
    assert store.corpora() != [] and store.get_run(again.run_id) is None
