"""A reviewer's revisions stored as a new run (issue 41 item 3: the review loop).

`workbench review import review/run.csv --reviewer NAME` reads the CSV that `workbench review
export` wrote (workbench.exchange.review_export) after a person wrote corrected pseudonyms in
its `revised` column, and stores a new run: the parent run's predictions copied, the revised
spans' replaced (note NOTE_REVIEWED). A doccano review project comes back through the same
check (workbench.doccano.review reads its export into the same rows).

Every row is checked against the parent run before anything is stored, and the first bad one
stops the import with its file, row, document and span named: a run id that is not the file's
(or not in the store), a document the run does not have, a span that is not one of its spans
to replace, an `original` or `pseudonym` cell edited (the correction goes in `revised`), a span
listed twice, a revision that cannot be stored. Rows may be left out (those spans keep the
parent's pseudonym); an empty `revised`, or one equal to the pseudonym, changes nothing.

The new run: source "reviewed", the parent's generator, model, mode and tagger, its
`file_sha256` the hash of the revisions (document, span, revised text) and its config the
parent run, the reviewer and how many spans changed, so the run legend of a report names all
three, and importing the same revisions again (the same file, or the file saved again by a
spreadsheet) returns the run already stored. Stored whole, in one transaction
(workbench.store.whole_run): never a half-written run. The run report `review` lists each change.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from workbench.exchange.importers import _unstorable
from workbench.exchange.review_export import REQUIRED, unescape_cell
from workbench.infra.errors import CorpusError, WorkbenchError
from workbench.prediction_notes import NOTE_REVIEWED
from workbench.store import COMPLETE, RunRecord, RunStore, StoredPrediction
from workbench.store.own_detections import own_detections
from workbench.store.run_name_rule import MAX_NAME_LENGTH
from workbench.store.run_reports import REVIEW
from workbench.store.signature import REVIEWED, RunSignature, library_versions
from workbench.store.whole_run import store_whole_run

REVIEWED_SUFFIX = " (reviewed)"


@dataclass(frozen=True, slots=True)
class ReviewRow:
    """A row as read from a review file: its cells by column, and where it is ("file x.csv, row 3")."""
    cells: dict[str, str]
    where: str


@dataclass(frozen=True, slots=True)
class Revision:
    doc_id: str
    span: int
    label: str
    before: str
    after: str


@dataclass(frozen=True, slots=True)
class CheckedReview:
    """Revisions checked against their parent run, ready to store (nothing stored yet)."""
    parent: RunRecord
    revisions: list[Revision]
    rows: int
    source: str  # the file (or doccano project) the revisions came from


def read_review_csv(path: str | Path) -> list[ReviewRow]:
    """The rows of a review CSV; CorpusError for a file that cannot be read or lacks a column."""
    path = Path(path)
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as exc:
        raise CorpusError(str(path), f"cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise CorpusError(str(path), f"not UTF-8 (byte {exc.start}); save it from the spreadsheet as "
                                     "CSV UTF-8") from None
    reader = csv.DictReader(io.StringIO(text, newline=""))
    missing = [c for c in REQUIRED if c not in (reader.fieldnames or ())]
    if missing:
        raise CorpusError(str(path), f"no column {', '.join(missing)} in the header (a review file has "
                                     f"{', '.join(REQUIRED)}, as `workbench review export` writes it)")
    rows = []
    try:
        for n, cells in enumerate(reader, start=1):
            # A short row leaves cells None: read as empty. Cells past the header are ignored.
            # Formula-like cells were written with an apostrophe in front (review_export.escape_cell).
            rows.append(ReviewRow({k: unescape_cell(v or "") for k, v in cells.items() if k is not None},
                                  f"{path}, row {n}"))
    except csv.Error as exc:
        raise CorpusError(str(path), f"not CSV at line {reader.line_num}: {exc}") from None
    return rows


def check_reviewer(reviewer: str) -> str:
    name = (reviewer or "").strip()
    if not name or not name.isprintable() or "|" in name:
        shown = name.encode("utf-8", "backslashreplace").decode("utf-8")
        raise WorkbenchError(f"reviewer {shown!r} must be a non-empty name on one line, without '|'")
    return name


def check_review(store: RunStore, rows: Sequence[ReviewRow], source: str) -> CheckedReview:
    """Check every row against the run the rows name (see the module's docstring); CorpusError at
    the first bad row, naming it."""
    if not rows:
        raise CorpusError(source, "no rows: nothing to review")
    run_id = rows[0].cells["run_id"].strip()
    try:
        parent = store.resolve_run(run_id) if run_id else None
    except WorkbenchError:
        parent = None
    if parent is None or parent.run_id != run_id:
        raise CorpusError(rows[0].where, f"run_id {run_id!r} is no run in {store.path} (a review file names the "
                                         "full id of the run it was exported from)")
    if parent.status != COMPLETE:
        raise CorpusError(rows[0].where, f"run {run_id} is not complete")
    corpus = store.load_corpus(parent.corpus_hash)
    docs = {d.doc_id: d for d in corpus.documents}
    stored = {(p.doc_id, p.span_index): p.pseudonym for p in store.predictions(parent.run_id)}
    seen: dict[tuple[str, int], str] = {}
    revisions = []
    for row in rows:
        cells = row.cells
        if cells["run_id"].strip() != run_id:
            raise CorpusError(row.where, f"run_id {cells['run_id']!r}, but the file's first row names run {run_id}: "
                                         "a review file is of one run")
        doc_id = cells["doc_id"]
        doc = docs.get(doc_id)
        if doc is None:
            raise CorpusError(row.where, f"run {run_id} has no such document (its corpus {corpus.name} has "
                                         f"{len(docs)}); the row is not from this run's export", doc_id=doc_id)
        index = _integer(cells["span"])
        if index is None or (doc_id, index) not in stored:
            raise CorpusError(row.where, f"no span {cells['span']!r} to replace in this document of run {run_id} "
                                         f"(its spans to replace are #{', #'.join(map(str, doc.masked_spans))})",
                              doc_id=doc_id, span=cells["span"])
        span = doc.spans[index]
        where = f"#{index} [{span.start}, {span.end}) {span.label}"
        for column, value in (("start", span.start), ("end", span.end)):
            given = cells.get(column, "").strip()
            if given and _integer(given) != value:
                raise CorpusError(row.where, f"{column} {given!r} was changed: the span is at [{span.start}, "
                                             f"{span.end}); restore the cell as exported", doc_id=doc_id, span=where)
        if cells["original"] != span.text:
            # The texts are not printed: they are personal data, and a terminal's scrollback keeps them.
            raise CorpusError(row.where, "the `original` cell was changed (it differs from the span's text in the "
                                         "corpus); restore it as exported and write a correction in `revised`",
                              doc_id=doc_id, span=where)
        if cells["pseudonym"] != stored[(doc_id, index)]:
            raise CorpusError(row.where, f"the `pseudonym` cell reads {cells['pseudonym']!r}, the run has "
                                         f"{stored[(doc_id, index)]!r}; leave it as exported and write the "
                                         "correction in `revised`", doc_id=doc_id, span=where)
        if (doc_id, index) in seen:
            raise CorpusError(row.where, f"this span is listed twice (also at {seen[(doc_id, index)]})",
                              doc_id=doc_id, span=where)
        seen[(doc_id, index)] = row.where
        revised = cells["revised"].strip()
        problem = _unstorable(revised) if revised else None
        if problem:
            raise CorpusError(row.where, f"the revised pseudonym {problem}", doc_id=doc_id, span=where)
        if revised and revised != stored[(doc_id, index)]:
            revisions.append(Revision(doc_id, index, span.label, stored[(doc_id, index)], revised))
    if not revisions:
        raise CorpusError(source, f"no row revises a pseudonym of run {run_id} (every `revised` cell is empty or "
                                  "the pseudonym itself): nothing to store")
    return CheckedReview(parent, revisions, len(rows), source)


def _integer(text: str) -> int | None:
    text = str(text).strip()
    return int(text) if text.isdigit() and text.isascii() else None


def revisions_hash(revisions: Sequence[Revision]) -> str:
    """What the reviewed run's id hashes of the revisions: (document, span, revised text), sorted."""
    key = sorted([r.doc_id, r.span, r.after] for r in revisions)
    return hashlib.sha256(json.dumps(key, ensure_ascii=False).encode("utf-8")).hexdigest()[:16]


def review_signature(checked: CheckedReview, reviewer: str) -> RunSignature:
    parent = checked.parent
    return RunSignature(corpus_name=parent.corpus_name, corpus_hash=parent.corpus_hash, generator=parent.generator,
                        model=parent.model, mode=parent.mode, upos_filter=parent.upos_filter,
                        tagger=parent.tagger or "", versions={"workbench": library_versions()["workbench"]},
                        config={"parent": parent.run_id, "reviewer": reviewer, "changed": len(checked.revisions)},
                        source=REVIEWED, file_sha256=revisions_hash(checked.revisions))


def store_review(store: RunStore, checked: CheckedReview, reviewer: str) -> RunRecord:
    """Store the checked revisions as a new run (or return the one stored from the same revisions)."""
    reviewer = check_reviewer(reviewer)
    parent = checked.parent
    signature = review_signature(checked, reviewer)
    revised = {(r.doc_id, r.span): r.after for r in checked.revisions}
    predictions = [StoredPrediction(p.doc_id, p.span_index, revised[(p.doc_id, p.span_index)],
                                    (revised[(p.doc_id, p.span_index)],), None, None, False, NOTE_REVIEWED, 0.0, 0)
                   if (p.doc_id, p.span_index) in revised else p
                   for p in store.predictions(parent.run_id)]
    options = {"file": checked.source, "parent": parent.run_id, "reviewer": reviewer,
               "changed": len(checked.revisions), "rows": checked.rows}
    report = {**options, "revisions": [{"doc_id": r.doc_id, "span": r.span, "label": r.label, "before": r.before,
                                        "after": r.after} for r in checked.revisions]}
    record = store_whole_run(store, signature=signature, corpus=store.load_corpus(parent.corpus_hash),
                             options=options, predictions=predictions, report_kind=REVIEW, report=report,
                             # the parent's originals are tagged already, under the same tagger
                             tag_originals=lambda: None, own_detections=own_detections(store, parent.run_id))
    if parent.name and not record.name and len(parent.name) + len(REVIEWED_SUFFIX) <= MAX_NAME_LENGTH:
        store.set_run_name(record.run_id, parent.name + REVIEWED_SUFFIX)  # beside its parent in tables
        record = store.get_run(record.run_id) or record
    return record


def import_review(store: RunStore, path: str | Path, reviewer: str) -> RunRecord:
    """`workbench review import`: the CSV checked whole, then stored as one new run."""
    check_reviewer(reviewer)
    return store_review(store, check_review(store, read_review_csv(path), str(path)), reviewer)
