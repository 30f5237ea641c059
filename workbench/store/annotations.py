"""Error annotations in the run store: the rows behind workbench.annotation.

    annotations             the current tag per (run, document, span, annotator)
    annotation_log          every save ever made, append-only: an overwrite loses nothing
    annotation_sample_info  a sample's name, how it was drawn (recipe) and when
    annotation_samples      which spans a sample holds, in which order

Functions of a RunStore, like workbench.store.run_reports: the checks an annotation must
pass (tagset, annotator name, source) are workbench.annotation.storage's; here is only
how rows are written and read. Each write is one transaction (all or nothing).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from workbench.infra.errors import WorkbenchError

_ANNOTATION_COLUMNS = ("run_id, doc_id, span_index, annotator, tag, note, source, updated, prompt_version, "
                       "suggested_by, suggested_tag")


@dataclass(frozen=True, slots=True)
class Annotation:
    run_id: str
    doc_id: str
    span_index: int
    annotator: str
    tag: str
    note: str = ""
    source: str = "api"  # where the tag was made: one of workbench.annotation.storage.SOURCES
    updated: float = 0.0  # seconds since the epoch; set when stored
    prompt_version: str = ""  # an LLM judge's tag: the version of the prompt it answered; "" for a person's
    # The judge's tag shown to the annotator as a suggestion when this tag was saved (it can bias
    # the annotator, so it is recorded): the judge's annotator name and its tag; "" when none was shown.
    suggested_by: str = ""
    suggested_tag: str = ""

    @property
    def item(self) -> tuple[str, str, int]:
        return (self.run_id, self.doc_id, self.span_index)


@dataclass(frozen=True, slots=True)
class SampleItem:
    run_id: str
    doc_id: str
    span_index: int


def _in(column: str, values: list) -> str:
    return f"{column} IN ({','.join('?' * len(values))})"


# -- annotations ---------------------------------------------------------------------
def save_annotations(store, annotations: Sequence[Annotation], now: float) -> None:
    """Store the tags (the later tag of an annotator replaces the earlier) and log every one."""
    with store.transaction() as db:
        db.executemany(
            "INSERT INTO annotations (run_id, doc_id, span_index, annotator, tag, note, source, created, updated, "
            "prompt_version, suggested_by, suggested_tag) VALUES (?,?,?,?,?,?,?,?,?,?,?,?) "
            "ON CONFLICT (run_id, doc_id, span_index, annotator) DO UPDATE SET "
            "tag=excluded.tag, note=excluded.note, source=excluded.source, updated=excluded.updated, "
            "prompt_version=excluded.prompt_version, suggested_by=excluded.suggested_by, "
            "suggested_tag=excluded.suggested_tag",
            [(a.run_id, a.doc_id, a.span_index, a.annotator, a.tag, a.note, a.source, now, now, a.prompt_version,
              a.suggested_by, a.suggested_tag) for a in annotations])
        db.executemany(
            "INSERT INTO annotation_log (run_id, doc_id, span_index, annotator, tag, note, source, saved, "
            "prompt_version, suggested_by, suggested_tag) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            [(a.run_id, a.doc_id, a.span_index, a.annotator, a.tag, a.note, a.source, now, a.prompt_version,
              a.suggested_by, a.suggested_tag) for a in annotations])


def select_annotations(store, run_ids: Iterable[str] | None = None,
                       annotators: Iterable[str] | None = None) -> list[Annotation]:
    """The current tags (of these runs, by these annotators, when given), in item order."""
    sql, args, where = f"SELECT {_ANNOTATION_COLUMNS} FROM annotations", [], []
    for column, values in (("run_id", run_ids), ("annotator", annotators)):
        if values is not None:
            values = list(values)
            where.append(_in(column, values))
            args += values
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += " ORDER BY run_id, doc_id, span_index, annotator"
    return [Annotation(*row) for row in store.db.execute(sql, args)]


def get_annotation(store, item: tuple[str, str, int], annotator: str) -> Annotation | None:
    row = store.db.execute(f"SELECT {_ANNOTATION_COLUMNS} FROM annotations "
                           "WHERE run_id=? AND doc_id=? AND span_index=? AND annotator=?",
                           (*item, annotator)).fetchone()
    return Annotation(*row) if row else None


def annotator_names(store) -> list[str]:
    return [r[0] for r in store.db.execute("SELECT DISTINCT annotator FROM annotations ORDER BY annotator")]


def log_size(store) -> int:
    return store.db.execute("SELECT COUNT(*) FROM annotation_log").fetchone()[0]


# The columns of annotated_spans' rows, in order.
ANNOTATED_SPAN_COLUMNS = ("run_id", "doc_id", "span_index", "annotator", "tag", "note", "source", "lang",
                          "generator", "model", "mode", "upos_filter", "corpus", "label", "original", "pseudonym")


def annotated_spans(store, run_ids: list[str] | None = None, annotators: list[str] | None = None) -> list[tuple]:
    """One row per tag given (ANNOTATED_SPAN_COLUMNS), with the span, its pseudonym and its run's facts."""
    sql = ("SELECT a.run_id, a.doc_id, a.span_index, a.annotator, a.tag, a.note, a.source, d.lang, r.generator, "
           "r.model, r.mode, r.upos_filter, r.corpus_name, s.label, s.text, p.pseudonym FROM annotations a "
           "JOIN runs r ON r.run_id=a.run_id JOIN predictions p ON p.run_id=a.run_id AND p.doc_id=a.doc_id "
           "AND p.span_index=a.span_index JOIN documents d ON d.corpus_hash=r.corpus_hash AND d.doc_id=a.doc_id "
           "JOIN spans s ON s.corpus_hash=r.corpus_hash AND s.doc_id=a.doc_id AND s.span_index=a.span_index")
    where, args = [], []
    for column, values in (("a.run_id", run_ids), ("a.annotator", annotators)):
        if values is not None:
            where.append(_in(column, values))
            args += list(values)
    if where:
        sql += " WHERE " + " AND ".join(where)
    return store.db.execute(sql, args).fetchall()


def run_spans(store, run_id: str) -> dict[tuple[str, int], tuple[str, str, str]]:
    """(doc_id, span_index) → (lang, original, pseudonym) for one run's pseudonyms."""
    rows = store.db.execute(
        "SELECT p.doc_id, p.span_index, d.lang, s.text, p.pseudonym "
        "FROM predictions p JOIN runs r ON r.run_id=p.run_id "
        "JOIN spans s ON s.corpus_hash=r.corpus_hash AND s.doc_id=p.doc_id AND s.span_index=p.span_index "
        "JOIN documents d ON d.corpus_hash=r.corpus_hash AND d.doc_id=p.doc_id WHERE p.run_id=?", (run_id,))
    return {(d, i): (lang, o, p) for d, i, lang, o, p in rows}


# -- samples -------------------------------------------------------------------------
def create_sample(store, name: str, items: Sequence[SampleItem], recipe: dict) -> None:
    """Store the sample; a name already taken is a WorkbenchError (checked inside the
    transaction: another session may create the same name meanwhile)."""
    with store.transaction() as db:
        if db.execute("SELECT 1 FROM annotation_sample_info WHERE sample=?", (name,)).fetchone():
            raise WorkbenchError(f"a sample named {name!r} already exists in {store.path}; pick another name")
        db.execute("INSERT INTO annotation_sample_info (sample, recipe, created) VALUES (?,?,?)",
                   (name, json.dumps(recipe, sort_keys=True), time.time()))
        db.executemany("INSERT INTO annotation_samples (sample, position, run_id, doc_id, span_index) "
                       "VALUES (?,?,?,?,?)",
                       [(name, i, it.run_id, it.doc_id, it.span_index) for i, it in enumerate(items)])


def samples(store) -> list[tuple[str, dict, int]]:
    """(name, recipe, size) of every sample, oldest first."""
    return [(n, json.loads(r), k) for n, r, k in store.db.execute(
        "SELECT i.sample, i.recipe, COUNT(s.position) FROM annotation_sample_info i "
        "LEFT JOIN annotation_samples s ON s.sample=i.sample GROUP BY i.sample ORDER BY i.created")]


def sample_items(store, name: str) -> list[SampleItem]:
    """The sample's items in order; none for a sample that does not exist."""
    return [SampleItem(*r) for r in store.db.execute(
        "SELECT run_id, doc_id, span_index FROM annotation_samples WHERE sample=? ORDER BY position", (name,))]


def done_positions(store, name: str, annotator: str) -> set[int]:
    """The positions in the sample of the items the annotator has tagged."""
    return {r[0] for r in store.db.execute(
        "SELECT s.position FROM annotation_samples s JOIN annotations a ON a.run_id=s.run_id AND "
        "a.doc_id=s.doc_id AND a.span_index=s.span_index AND a.annotator=? WHERE s.sample=?", (annotator, name))}


def logged_annotations(store, item: tuple[str, str, int], annotator: str) -> list[Annotation]:
    """Every save of the annotator's tag for the item, oldest first (from annotation_log)."""
    return [Annotation(*row) for row in store.db.execute(
        "SELECT run_id, doc_id, span_index, annotator, tag, note, source, saved, prompt_version, suggested_by, "
        "suggested_tag FROM annotation_log WHERE run_id=? AND doc_id=? AND span_index=? AND annotator=? "
        "ORDER BY rowid", (*item, annotator))]
