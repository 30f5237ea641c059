"""A run as a doccano sequence-labelling project, and a doccano export back as error tags.

Export, one JSONL line per document of the run:

    {"text": <the pseudonymised document>,
     "label": [[start, end, TAG], …],   one span per replacement
     "run_id": …, "doc_id": …, "lang": "en", "system": "upos maskL +UPOS",
     "originals": ["Paris ← Oslo", …]}

Every line carries the same extra keys (doccano refuses the whole file otherwise, see
shared/notes/doccano.md); doccano flattens them to the top level of its own export,
which is how they come back. The keys avoid `id` and `text`, which doccano's export
would overwrite. A replacement's TAG is the chosen annotator's tag where one exists,
else UNTAGGED, a placeholder label that import skips: an annotator relabels each span.
`originals` shows the original next to each pseudonym, which OVERLAP and SEM:CATEGORY
need (003 annotators saw both). A suppressed span (empty replacement) leaves nothing in the
text to tag, so it gets no label and no annotation.

Import checks each line against the run in the store: the text must equal the run's
pseudonymised document, and every span must sit exactly on a replacement. doccano does
not validate offsets (notes), so this is where a bad file stops, naming line, document
and offsets. A pseudonym given several tags gets the first in precedence order
(003 Appendix C: one category per pseudonym).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from workbench.annotation.results import system_name
from workbench.annotation.storage import Annotation, AnnotationStore
from workbench.infra import jsonl
from workbench.infra.errors import WorkbenchError
from workbench.store.own_detections import own_detections
from workbench.text.replace import Replaced, pseudonymise

PLACEHOLDER = "UNTAGGED"
PLACEHOLDER_COLOR = "#bdbdbd"
META_KEYS = ("run_id", "doc_id", "lang", "system", "originals")


def _run_documents(store: AnnotationStore, run_id: str):
    """The run, its corpus, its picks by document, and an import's own detections by document
    (edits outside every span: the document a doccano annotator reads is the one the system wrote)."""
    run = store.run_store.resolve_run(run_id)
    corpus = store.run_store.load_corpus(run.corpus_hash)
    picks: dict[str, dict[int, str]] = {}
    for p in store.run_store.predictions(run.run_id):
        picks.setdefault(p.doc_id, {})[p.span_index] = p.pseudonym
    return run, corpus, picks, own_detections(store.run_store, run.run_id)


def export_lines(store: AnnotationStore, run_id: str, annotator: str | None = None) -> list[dict]:
    run, corpus, picks, outside = _run_documents(store, run_id)
    tags = {(a.doc_id, a.span_index): a.tag
            for a in (store.annotations([run.run_id], [annotator]) if annotator else [])}
    lines = []
    for doc in corpus.documents:
        if doc.doc_id not in picks:
            continue
        text, placed = pseudonymise(doc, picks[doc.doc_id], outside.get(doc.doc_id, ()))
        placed = [r for r in placed if r.end > r.start]  # a suppressed span leaves nothing to tag
        lines.append({
            "text": text,
            "label": [[r.start, r.end, tags.get((doc.doc_id, r.span_index), PLACEHOLDER)] for r in placed],
            "run_id": run.run_id, "doc_id": doc.doc_id, "lang": doc.lang,
            "system": system_name(run.generator, run.mode, run.upos_filter),
            "originals": [f"{r.pseudonym} ← {r.original}" for r in placed],
        })
    if not lines:
        raise WorkbenchError(f"run {run.run_id} has no pseudonyms to export")
    return lines


def export_project(store: AnnotationStore, run_id: str, path: str | Path, annotator: str | None = None) -> int:
    """Write the run as doccano JSONL; returns the number of documents."""
    return jsonl.write(path, export_lines(store, run_id, annotator))


@dataclass(frozen=True, slots=True)
class ParsedExport:
    annotations: list[Annotation]
    where: list[str]  # file:line of each, for error messages on save
    untagged: int  # replacements still carrying the placeholder (or no span at all)
    resolved: int  # replacements that had several tags, reduced by precedence


def _labels(obj: dict, here: str) -> list[tuple[int, int, str]]:
    labels = obj.get("label", obj.get("entities", []))
    if not isinstance(labels, list):
        raise WorkbenchError(f"{here}: `label` is not a list")
    out = []
    for item in labels:
        if isinstance(item, dict):  # doccano's newer exports write objects
            item = [item.get("start_offset"), item.get("end_offset"), item.get("label")]
        if not (isinstance(item, list) and len(item) == 3 and all(isinstance(x, int) for x in item[:2])):
            raise WorkbenchError(f"{here}: label {item!r} is not [start, end, TAG]")
        out.append((item[0], item[1], str(item[2])))
    return out


def parse_export(store: AnnotationStore, lines: str | Iterable[str], annotator: str,
                 source_name: str) -> ParsedExport:
    """doccano JSONL (the text, or its lines split on "\n" only) of one annotator → their error tags."""
    text = lines if isinstance(lines, str) else "\n".join(lines)
    cache: dict[str, tuple] = {}
    found, where, untagged, resolved = [], [], 0, 0
    for number, obj in jsonl.parse(text, source_name):
        here = f"file {source_name}, line {number}"
        missing = [k for k in ("text", "run_id", "doc_id") if k not in obj]
        if missing:
            raise WorkbenchError(f"{here}: missing {', '.join(missing)} (not a workbench doccano project?)")
        run_id, doc_id = str(obj["run_id"]), str(obj["doc_id"])
        if run_id not in cache:
            cache[run_id] = _run_documents(store, run_id)
        run, corpus, picks, outside = cache[run_id]
        try:
            doc = corpus.document(doc_id)
        except KeyError:
            raise WorkbenchError(f"{here}: document {doc_id} is not in run {run_id[:12]}'s corpus") from None
        text, placed = pseudonymise(doc, picks.get(doc_id, {}), outside.get(doc_id, ()))
        if obj["text"] != text:
            raise WorkbenchError(f"{here}: document {doc_id}: the text differs from run {run_id[:12]}'s "
                                 "pseudonymised document (edited in doccano?)")
        placed = [r for r in placed if r.end > r.start]  # as exported: suppressed spans carry no label
        by_offsets: dict[tuple[int, int], Replaced] = {(r.start, r.end): r for r in placed}
        tags: dict[int, list[str]] = {}
        for start, end, tag in _labels(obj, here):
            r = by_offsets.get((start, end))
            if r is None:
                raise WorkbenchError(f"{here}: document {doc_id}: span [{start}, {end}) {text[start:end]!r} "
                                     "is not one of the run's replacements")
            if tag != PLACEHOLDER:
                if tag not in store.tagset:
                    raise WorkbenchError(f"{here}: document {doc_id}: span [{start}, {end}): unknown tag {tag!r} "
                                         f"(tagset: {', '.join(store.tagset.names)})")
                tags.setdefault(r.span_index, []).append(tag)
        untagged += len(placed) - len(tags)
        for index, given in sorted(tags.items()):
            resolved += len(set(given)) > 1
            found.append(Annotation(run.run_id, doc_id, index, annotator, store.tagset.resolve(given), "", "doccano"))
            where.append(here)
    return ParsedExport(found, where, untagged, resolved)


def import_export(store: AnnotationStore, path: str | Path, annotator: str | None = None) -> ParsedExport:
    """Import one doccano JSONL file; the annotator defaults to the file's stem (doccano names it after the user)."""
    path = Path(path)
    parsed = parse_export(store, jsonl.read_text(path), annotator or path.stem, str(path))
    store.save_many(parsed.annotations, parsed.where)
    return parsed
