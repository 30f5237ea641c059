"""The Annotate page's corrected pseudonym (issue 41 item 3): written beside the tag, it is stored as
`workbench review import` stores a review (a reviewed run naming its parent and the annotator),
the annotator's corrections of a run kept together in one run, a correction taken back by
writing the pseudonym again, a text the import refuses refused with nothing saved."""

from __future__ import annotations

from dashboard_helpers import ok, page

from tests.metrics.conftest import RUN_A, add_run
from workbench.annotation.storage import AnnotationStore, SampleItem
from workbench.store import RunStore
from workbench.store.run_reports import REVIEW, run_report

ITEMS = [("en-1", 8), ("en-2", 1), ("sv-1", 3)]  # Oslo (kept as itself), Eva Nowak (kept), lärare


def _save(at, pos: int, key: str, revised: str | None = None):
    at.text_input(key=f"ann_key::{pos}").input(key)
    if revised is not None:
        at.text_input(key=f"ann_revised::{pos}").input(revised)
    next(b for b in at.button if b.label == "Save and next").click().run()
    return at


def _reviewed(path) -> list:
    with RunStore(path) as store:
        return [(r, {(p.doc_id, p.span_index): p.pseudonym for p in store.predictions(r.run_id)},
                 run_report(store, r.run_id, REVIEW)) for r in store.runs() if r.source == "reviewed"]


def test_corrections_are_stored_as_one_reviewed_run_of_the_parent(tmp_path, tiny_corpus):
    path = tmp_path / "runs.sqlite"
    with RunStore(path) as store:
        parent = add_run(store, tiny_corpus, RUN_A)
        AnnotationStore(store).create_sample("s", [SampleItem(parent, d, i) for d, i in ITEMS], {})
    at = page("pages/4_Annotate.py", path)
    at.sidebar.text_input(key="ann_name").input("erik").run()
    ok(at)
    assert at.text_input(key="ann_revised::0").value == ""

    ok(_save(at, 0, "3", "Bergen"))  # OVERLAP, and a correction
    [(run, preds, report)] = _reviewed(path)
    assert (run.config["parent"], run.config["reviewer"], run.options["file"]) == (parent, "erik", "dashboard")
    assert preds[("en-1", 8)] == "Bergen" and report["revisions"] == [
        {"doc_id": "en-1", "span": 8, "label": "LOC", "before": "Oslo", "after": "Bergen"}]
    assert any(f"reviewed run {run.run_id[:8]}" in c.value for c in at.caption)

    ok(_save(at, 1, "3", "Ewa Lis"))  # a second correction: one run with both, the first one's gone
    [(second, preds, report)] = _reviewed(path)
    assert second.run_id != run.run_id and second.config["changed"] == 2
    assert (preds[("en-1", 8)], preds[("en-2", 1)]) == ("Bergen", "Ewa Lis")
    with RunStore(path) as store:
        unchanged = {(p.doc_id, p.span_index): p.pseudonym for p in store.predictions(parent)}
        assert {k for k in preds if preds[k] != unchanged[k]} == {("en-1", 8), ("en-2", 1)}
        tag = AnnotationStore(store).get((parent, "en-2", 1), "erik")
        assert tag is not None and tag.tag == "OVERLAP"  # the tag is saved on the parent as before

    _save(at, 2, "1", "\u200b\u200b")  # invisible: refused as the import refuses it, nothing saved
    assert any("revised pseudonym is invisible" in e.value for e in at.error)
    with RunStore(path) as store:
        assert AnnotationStore(store).get((parent, "sv-1", 3), "erik") is None
    assert [r.run_id for r, _, _ in _reviewed(path)] == [second.run_id]

    # Back to the first item: the field shows the correction; the pseudonym itself takes it back.
    at.session_state["ann_pos::s::erik"] = 0
    at.run()
    assert ok(at).text_input(key="ann_revised::0").value == "Bergen"
    ok(_save(at, 0, "3", "Oslo"))
    [(third, preds, _)] = _reviewed(path)
    assert third.config["changed"] == 1 and preds[("en-1", 8)] == "Oslo" and preds[("en-2", 1)] == "Ewa Lis"
