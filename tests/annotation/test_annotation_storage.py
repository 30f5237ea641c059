"""Annotation storage: validation, overwrite history, resume, and concurrent annotators."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from tests.helpers.waiting import wait_until
from workbench.annotation import Annotation, AnnotationStore
from workbench.annotation.sampling import SampleRecipe, draw_sample
from workbench.infra.errors import WorkbenchError

TESTS = Path(__file__).resolve().parents[2]  # the checkout
GO_WITHIN = 120  # seconds a writer waits at the barrier (WRITER's too), and the test for all four writers


def first_run(store: AnnotationStore) -> str:
    return next(r.run_id for r in store.run_store.runs() if r.corpus_name == "pgv-pii-en")


def test_save_overwrite_and_log(baseline_copy):
    s = AnnotationStore(baseline_copy)
    run = first_run(s)
    p = s.run_store.predictions(run)[0]
    s.save(Annotation(run, p.doc_id, p.span_index, "anna", "POS", " first "))
    s.save(Annotation(run, p.doc_id, p.span_index, "anna", "GRAMMAR", "changed my mind"))
    got = s.get((run, p.doc_id, p.span_index), "anna")
    assert (got.tag, got.note) == ("GRAMMAR", "changed my mind")
    assert len(s.annotations()) == 1 and s.log_size() == 2  # the overwrite is still in the log


@pytest.mark.parametrize("change, message", [
    ({"tag": "SEMANTIC"}, "unknown tag 'SEMANTIC'"),
    ({"span_index": 9999}, "span 9999: no such pseudonym"),
    ({"doc_id": "nope"}, "document nope"),
    ({"annotator": "  "}, "annotator name"),
    ({"annotator": "a/b"}, "no slashes"),
    ({"source": "email"}, "unknown annotation source"),
])
def test_bad_annotations_are_refused_and_nothing_is_written(baseline_copy, change, message):
    s = AnnotationStore(baseline_copy)
    run = first_run(s)
    p = s.run_store.predictions(run)[0]
    good = Annotation(run, p.doc_id, p.span_index, "anna", "POS")
    bad = Annotation(**{**{f: getattr(good, f) for f in Annotation.__slots__}, **change})
    with pytest.raises(WorkbenchError, match=message):
        s.save_many([good, bad])
    assert s.annotations() == [] and s.log_size() == 0


def test_resume_where_the_annotator_stopped(baseline_copy):
    s = AnnotationStore(baseline_copy)
    items = draw_sample(s.run_store, SampleRecipe((first_run(s),), 10, "span", 3))
    s.create_sample("one", items, {})
    assert s.resume_position("one", "anna") == 0
    for it in items[:4] + items[5:6]:
        s.save(Annotation(it.run_id, it.doc_id, it.span_index, "anna", "NO_ERROR"))
    assert s.resume_position("one", "anna") == 4  # the first gap, not the last save
    assert s.resume_position("one", "bo") == 0  # per annotator
    with pytest.raises(WorkbenchError, match="already exists"):
        s.create_sample("one", items, {})


WRITER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from workbench.annotation import Annotation, AnnotationStore
    path, annotator, barrier = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    sys.path.insert(0, sys.argv[4])  # the checkout, for tests.helpers.waiting
    from tests.helpers.waiting import wait_until
    s = AnnotationStore(path)
    run = [r.run_id for r in s.run_store.runs() if r.corpus_name == "pgv-pii-en"][0]
    preds = s.run_store.predictions(run)[:80]
    (barrier / annotator).touch()  # ready
    # All writers start together, however long each took to load; none waits for ever.
    wait_until((barrier / "go").exists, 120, "the test's go", interval=0.005)
    for p in preds:  # one transaction per tag, as the dashboard saves
        s.save(Annotation(run, p.doc_id, p.span_index, annotator, "POS" if p.span_index % 2 else "OVERLAP"))
    print(len(preds))
""")


def test_concurrent_annotators_lose_nothing(baseline_copy, tmp_path):
    """Two processes and two threads (each with its own connection) save at the same time into one file.

    They start together at a barrier: each writer touches its name in `barrier/` when ready,
    and all begin once the test has seen all four and created `barrier/go`; every wait there has
    a deadline, so a writer that dies fails the test instead of holding the others for ever."""
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    names = ("proc-a", "proc-b", "thread-a", "thread-b")
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(baseline_copy), name, str(barrier), str(TESTS)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for name in names[:2]]
    errors = []

    def thread_writer(name: str) -> None:
        try:
            s = AnnotationStore(baseline_copy)
            run = first_run(s)
            preds = s.run_store.predictions(run)[:80]
            (barrier / name).touch()
            wait_until((barrier / "go").exists, GO_WITHIN, "the test's go", interval=0.005)
            for p in preds:
                s.save(Annotation(run, p.doc_id, p.span_index, name, "GRAMMAR"))
                # The same annotator in a second tab: overwrites its own row, every save logged.
                s.save(Annotation(run, p.doc_id, p.span_index, name, "SEM:CATEGORY", "second tab"))
            s.close()
        except Exception as exc:  # surfaced below: a thread's failure must fail the test
            errors.append(exc)

    threads = [threading.Thread(target=thread_writer, args=(n,)) for n in names[2:]]
    for t in threads:
        t.start()

    def all_ready() -> bool:
        failed = [p for p in procs if p.poll() is not None] or errors
        assert not failed, [p.communicate() for p in procs if p.poll() is not None] or errors
        return all((barrier / n).exists() for n in names)
    try:
        wait_until(all_ready, GO_WITHIN, "the four writers to be ready", interval=0.01)
    finally:
        (barrier / "go").touch()  # also after a failure: no writer waits out its deadline
    for t in threads:
        t.join(120)
    outputs = [p.communicate(timeout=120) for p in procs]
    assert not errors, errors
    assert all(p.returncode == 0 for p in procs), [o[1][-500:] for o in outputs]

    s = AnnotationStore(baseline_copy)
    rows = s.annotations()
    by_annotator = {}
    for a in rows:
        by_annotator.setdefault(a.annotator, []).append(a)
    assert {k: len(v) for k, v in by_annotator.items()} == {"proc-a": 80, "proc-b": 80, "thread-a": 80,
                                                             "thread-b": 80}
    assert all(a.tag == ("POS" if a.span_index % 2 else "OVERLAP") for a in by_annotator["proc-a"])
    assert all(a.tag == "SEM:CATEGORY" for a in by_annotator["thread-b"])  # the later save wins
    assert s.log_size() == 80 * 2 + 80 * 2 * 2
