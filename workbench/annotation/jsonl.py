"""Annotations as JSONL: one tag per line, for backups, sharing and other tools.

    {"run_id": …, "doc_id": …, "span_index": 3, "annotator": "anna", "tag": "POS",
     "note": "", "source": "dashboard", "updated": 1731000000.0,
     "lang": "en", "original": "Oslo", "pseudonym": "quickly"}

run_id/doc_id/span_index/annotator/tag are required on import; `original` and
`pseudonym`, when present, must match the store, so a file made against another run or
corpus is refused instead of attaching tags to the wrong words. Imports are all or
nothing and name the file and line of the first problem.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from workbench.annotation.storage import Annotation, AnnotationStore
from workbench.infra import jsonl
from workbench.infra.errors import WorkbenchError
from workbench.store.annotations import run_spans

REQUIRED = ("run_id", "doc_id", "span_index", "annotator", "tag")
# Written only when set: a judge's prompt version, the suggestion an annotator was shown.
JUDGE_FIELDS = ("prompt_version", "suggested_by", "suggested_tag")


def _judge_fields(a: Annotation) -> dict:
    return {k: getattr(a, k) for k in JUDGE_FIELDS if getattr(a, k)}


def _spans_of(store: AnnotationStore, run_id: str) -> dict[tuple[str, int], tuple[str, str, str]]:
    """(doc_id, span_index) → (lang, original, pseudonym) for one run."""
    return run_spans(store.run_store, run_id)


def export_annotations(store: AnnotationStore, path: str | Path, run_ids: Iterable[str] | None = None,
                       annotators: Iterable[str] | None = None) -> int:
    """Write the current tags; returns the number of lines."""
    rows = store.annotations(run_ids, annotators)
    spans: dict[str, dict] = {}

    def lines():
        for a in rows:
            info = spans.setdefault(a.run_id, _spans_of(store, a.run_id))
            lang, original, pseudonym = info[(a.doc_id, a.span_index)]
            yield {"run_id": a.run_id, "doc_id": a.doc_id, "span_index": a.span_index,
                   "annotator": a.annotator, "tag": a.tag, "note": a.note, "source": a.source,
                   "updated": a.updated, "lang": lang, "original": original, "pseudonym": pseudonym,
                   **_judge_fields(a)}
    jsonl.write(path, lines())
    return len(rows)


def read_annotations(store: AnnotationStore, path: str | Path, annotator: str | None = None
                     ) -> tuple[list[Annotation], list[str]]:
    """Parse and check a JSONL file against the store; `annotator` overrides the file's names."""
    path = Path(path)
    found, where, spans = [], [], {}
    for number, obj in jsonl.parse(jsonl.read_text(path), str(path)):  # line by line: first problem first
        here = f"file {path}, line {number}"
        missing = [k for k in REQUIRED if k not in obj and not (k == "annotator" and annotator)]
        if missing:
            raise WorkbenchError(f"{here}: missing {', '.join(missing)}")
        if not isinstance(obj["span_index"], int) or isinstance(obj["span_index"], bool):
            raise WorkbenchError(f"{here}: span_index must be an integer, not {obj['span_index']!r}")
        run_id, doc_id, index = str(obj["run_id"]), str(obj["doc_id"]), obj["span_index"]
        if run_id not in spans:
            spans[run_id] = _spans_of(store, run_id)
            if not spans[run_id]:
                raise WorkbenchError(f"{here}: no run {run_id!r} with pseudonyms in {store.run_store.path}")
        info = spans[run_id].get((doc_id, index))
        if info is None:
            raise WorkbenchError(f"{here}: document {doc_id}, span {index}: no pseudonym of run {run_id[:12]}")
        for key, stored in (("original", info[1]), ("pseudonym", info[2])):
            if key in obj and obj[key] != stored:
                raise WorkbenchError(f"{here}: document {doc_id}, span {index}: {key} {obj[key]!r} differs from "
                                     f"the store's {stored!r} (a file made for another run?)")
        judged = {k: str(obj.get(k) or "") for k in JUDGE_FIELDS}
        found.append(Annotation(run_id, doc_id, index, annotator or str(obj["annotator"]), str(obj["tag"]),
                                str(obj.get("note") or ""), "jsonl", prompt_version=judged["prompt_version"],
                                suggested_by=judged["suggested_by"], suggested_tag=judged["suggested_tag"]))
        where.append(here)
    return found, where


def import_annotations(store: AnnotationStore, path: str | Path, annotator: str | None = None) -> int:
    """Check every line, then store them all in one transaction; returns the number stored."""
    found, where = read_annotations(store, path, annotator)
    store.save_many(found, where)
    return len(found)
