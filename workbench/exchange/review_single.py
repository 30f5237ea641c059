"""One corrected pseudonym at a time (issue 41 item 3: the dashboard's Annotate page).

A reviewer who corrects pseudonyms one by one (the Annotate page's "Corrected pseudonym"
field) gets what `workbench review import` gives for a file: a reviewed run of the parent,
naming it and the reviewer, stored by the same check and the same function
(workbench.exchange.review_import.check_review / store_review), its options' `file` reading
SOURCE ("dashboard").

Each correction stores the reviewer's corrections of that run so far, this one included, as
one reviewed run: the earlier ones are read from the run the previous correction stored (its
review report), and that run is then deleted, since the new one holds all it held (one run per
parent and reviewer, as one review file gives one). A run annotated or sampled meanwhile is
people's work and is not deleted: it is hidden on the dashboard instead
(workbench.store.hidden_runs). A correction equal to the parent's pseudonym takes that span's
correction back; with none left, no run remains.
"""

from __future__ import annotations

from workbench.exchange.review_import import ReviewRow, check_review, check_reviewer, store_review
from workbench.infra.errors import WorkbenchError
from workbench.store import RunRecord, RunStore
from workbench.store.run_reports import REVIEW, run_report
from workbench.store.signature import REVIEWED

SOURCE = "dashboard"


def earlier_review(store: RunStore, parent: str, reviewer: str) -> RunRecord | None:
    """The run this reviewer's previous correction of `parent` stored here (the newest not hidden; None: none)."""
    from workbench.store.hidden_runs import hidden_runs
    hidden = hidden_runs(store)  # a superseded run kept for its annotations (_retire)
    runs = [r for r in store.runs() if r.source == REVIEWED and r.options.get("file") == SOURCE
            and r.run_id not in hidden
            and r.config.get("parent") == parent and r.config.get("reviewer") == reviewer]
    return runs[-1] if runs else None


def corrections(store: RunStore, parent: str, reviewer: str) -> dict[tuple[str, int], str]:
    """(doc_id, span) -> the corrected pseudonym, as the reviewer left them on the page."""
    earlier = earlier_review(store, parent, reviewer)
    report = run_report(store, earlier.run_id, REVIEW) if earlier else None
    return {(r["doc_id"], int(r["span"])): r["after"] for r in (report or {}).get("revisions", [])}


def revise_span(store: RunStore, run_id: str, doc_id: str, span: int, revised: str,
                reviewer: str) -> RunRecord | None:
    """Store the reviewer's corrections of run `run_id` with this one (module docstring); returns
    the reviewed run, or None where no correction is left. A WorkbenchError (nothing stored) for
    a span the run does not replace or a text that cannot be stored, as the import gives."""
    reviewer = check_reviewer(reviewer)
    parent = store.resolve_run(run_id)
    earlier = earlier_review(store, parent.run_id, reviewer)
    wanted = {**corrections(store, parent.run_id, reviewer), (doc_id, int(span)): revised.strip()}
    pseudonyms = {(p.doc_id, p.span_index): p.pseudonym for p in store.predictions(parent.run_id)}
    texts = {(d.doc_id, i): s.text for d in store.load_corpus(parent.corpus_hash).documents
             for i, s in enumerate(d.spans)}
    if (doc_id, int(span)) not in pseudonyms:
        raise WorkbenchError(f"run {parent.run_id[:12]}, document {doc_id}, span {span}: no pseudonym to correct")
    rows = [ReviewRow({"run_id": parent.run_id, "doc_id": d, "span": str(i), "original": texts[(d, i)],
                       "pseudonym": pseudonyms[(d, i)], "revised": text}, f"{SOURCE}, document {d}, span {i}")
            for (d, i), text in sorted(wanted.items()) if text and text != pseudonyms[(d, i)]]
    record = store_review(store, check_review(store, rows, SOURCE), reviewer) if rows else None
    if earlier is not None and (record is None or earlier.run_id != record.run_id):
        _retire(store, earlier.run_id)
    return record


def _retire(store: RunStore, run_id: str) -> None:
    """The superseded run deleted, or hidden where deleting it would take people's annotations."""
    from workbench.store.hidden_runs import set_hidden
    from workbench.store.run_deletion import delete_runs
    try:
        delete_runs(store, [run_id])
    except WorkbenchError:
        set_hidden(store, [run_id])
