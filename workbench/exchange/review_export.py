"""A run written out for a person to review its pseudonyms (issue 41 item 3: the review loop).

`workbench review export RUN -o review/run.csv` writes

    review/run.csv             one row per span to replace: run_id, doc_id, span (the corpus span's
                               index), start, end (the original's offsets), label, original,
                               pseudonym, revised (empty: the reviewer writes a corrected pseudonym
                               there, or leaves it empty to keep the pseudonym), context (the
                               pseudonymised text around the span, the pseudonym marked)
    review/run.documents.txt   every document pseudonymised, each pseudonym marked `[Sven]{#3 PERSON}`
                               (3: the row's `span`), the provenance export's inline marks
                               (workbench.exchange.provenance.inline_text)

`workbench review import review/run.csv --reviewer NAME` stores the revisions as a new run
(workbench.exchange.review_import). The CSV holds the original text of every span (a reviewer
judges a pseudonym against what it replaces): it is personal data, and the command says so.
It is written with a byte-order mark, so a spreadsheet opens it as UTF-8 (the import drops it).

Spreadsheet formulas: a cell whose text begins with `=`, `+`, `-`, `@`, a tab or a carriage
return (after any apostrophes) is written with one more `'` in front (`=SUM(A1)` as
`'=SUM(A1)`, `'=x` as `''=x`), so a spreadsheet shows it as text and never runs it (a
span's original or pseudonym is text from a corpus or a model, not to be trusted); the
import (`unescape_cell`) takes that one apostrophe off every such cell, `revised` too, so
the text comes back unchanged. Other cells are written as they are: `'Neil` stays `'Neil`.
"""

from __future__ import annotations

import csv
import io
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from workbench.exchange.provenance import inline_text
from workbench.infra.errors import WorkbenchError
from workbench.store import COMPLETE, RunRecord, RunStore
from workbench.store.own_detections import own_detections
from workbench.text.replace import pseudonymise

COLUMNS = ("run_id", "doc_id", "span", "start", "end", "label", "original", "pseudonym", "revised", "context")
# The columns an import reads (start, end, label and context are there for the reviewer).
REQUIRED = ("run_id", "doc_id", "span", "original", "pseudonym", "revised")
DOCUMENTS_SUFFIX = ".documents.txt"
CONTEXT_CHARS = 60  # of the pseudonymised text on each side of the pseudonym in `context`
PERSONAL_DATA_WARNING = ("holds the original text of every span (personal data): give it to the reviewer only, "
                         "and keep it apart from the pseudonymised corpus")


@dataclass(frozen=True, slots=True)
class ReviewRow:
    """One span of the run as the reviewer sees it (a row of the CSV, an example in doccano)."""
    run_id: str
    doc_id: str
    span: int
    start: int
    end: int
    label: str
    original: str
    pseudonym: str
    context: str


# After any apostrophes, what makes a spreadsheet read a cell as a formula (OWASP's CSV injection list).
_FORMULA = re.compile(r"'*[=+\-@\t\r]")


def escape_cell(text: str) -> str:
    """The cell as written: one `'` more in front of a formula-like text (the module's docstring)."""
    return "'" + text if _FORMULA.match(text) else text


def unescape_cell(text: str) -> str:
    """The cell as read back: escape_cell undone (`'=x` -> `=x`); other text unchanged."""
    return text[1:] if text.startswith("'") and _FORMULA.match(text[1:]) else text


def documents_path(path: Path) -> Path:
    return path.with_name(path.stem + DOCUMENTS_SUFFIX)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def review_rows(store: RunStore, run: RunRecord) -> tuple[list[ReviewRow], list[str]]:
    """The run's spans to review, in document and span order, and each document pseudonymised with
    its pseudonyms marked (`# doc_id` and the text); a run that is not complete is refused."""
    if run.status != COMPLETE:
        raise WorkbenchError(f"run {run.run_id} is not complete ({store.count_predictions(run.run_id)}/"
                             f"{run.n_slots} spans generated): finish it before it is reviewed")
    corpus = store.load_corpus(run.corpus_hash)
    picks: dict[str, dict[int, str]] = {}
    for p in store.predictions(run.run_id):
        picks.setdefault(p.doc_id, {})[p.span_index] = p.pseudonym
    outside = own_detections(store, run.run_id)
    rows, documents = [], []
    for doc in corpus.documents:
        text, placed = pseudonymise(doc, picks.get(doc.doc_id, {}), outside.get(doc.doc_id, ()))
        marks = [{"start": r.start, "end": r.end, "label": f"#{r.span_index} {doc.spans[r.span_index].label}",
                  "replacement": ""} for r in placed]
        documents.append(f"# {doc.doc_id}\n{inline_text(text, marks)}\n")
        for r, mark in sorted(zip(placed, marks), key=lambda pair: pair[0].span_index):
            span = doc.spans[r.span_index]
            before = text[max(0, r.start - CONTEXT_CHARS):r.start]
            after = text[r.end:r.end + CONTEXT_CHARS]
            context = f"{before}[{r.pseudonym}]{{{mark['label']}}}{after}"
            rows.append(ReviewRow(run.run_id, doc.doc_id, r.span_index, span.start, span.end, span.label, span.text,
                                  r.pseudonym, _one_line(context)))
    return rows, documents


def _csv_text(rows: list[ReviewRow]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for r in rows:
        writer.writerow([r.run_id, escape_cell(r.doc_id), r.span, r.start, r.end, escape_cell(r.label),
                         escape_cell(r.original), escape_cell(r.pseudonym), "", escape_cell(r.context)])
    return out.getvalue()


def _write_all(files: dict[Path, str]) -> None:
    """Each text to its path, all or nothing: written to temporary files beside them, then renamed."""
    staged: list[tuple[Path, Path]] = []
    try:
        for path, text in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
            with os.fdopen(fd, "w", encoding="utf-8-sig" if path.suffix == ".csv" else "utf-8", newline="") as f:
                f.write(text)
            staged.append((Path(name), path))
        for partial, path in staged:
            partial.replace(path)
    finally:
        for partial, _ in staged:
            partial.unlink(missing_ok=True)


@dataclass(frozen=True, slots=True)
class ReviewExport:
    run_id: str
    csv: Path
    documents: Path
    rows: int


def export_review(store: RunStore, run_id: str, path: str | Path) -> ReviewExport:
    """Write the run (id or unique prefix) for review: the CSV at `path` and the marked documents
    beside it (documents_path)."""
    run = store.resolve_run(run_id)
    rows, documents = review_rows(store, run)
    path = Path(path)
    if path.suffix.lower() != ".csv":
        raise WorkbenchError(f"{path}: a review file is CSV; name it with .csv")
    _write_all({documents_path(path): "\n".join(documents), path: _csv_text(rows)})
    return ReviewExport(run.run_id, path, documents_path(path), len(rows))
