"""Writing a stored run in the formats other tools read.

tab      {doc_id: [[start, end], …]}: the spans masked, as TAB's evaluation script takes them
intact   {doc_id: [[start, end, replacement], …]}: original offsets with their replacement
doccano  JSONL: the pseudonymised text, each replacement a span labelled with its original
         label (a suppressed span, replaced by nothing, gets no label); metadata run_id/doc_id
         so annotation can come back (see workbench.annotation); a span whose entity the corpus
         file stated (doccano ids or relations, TAB's entity_id) carries it as a 4th element,
         [start, end, LABEL, ENTITY], so the file loads back with its entities
A suppressed span (empty replacement, workbench.alignment.SUPPRESSED) is written as it is:
`[start, end, ""]` in intact (TAE reads an empty replacement as suppression), masked in tab.
csv / parquet: the tidy frame (workbench.tidy_frame)

A run that is not complete is refused: its spans not generated yet would be written with
their original text, the personal data the export exists to remove. With unfinished=True
(`--unfinished`) it is exported with each such span written as MASKED_FORMAT instead.
JSONL lines escape U+2028, U+2029 and U+0085 (workbench.jsonl), so every line splitter
reads one record a line and the workbench reads its own export back.
"""

from __future__ import annotations

import json
from pathlib import Path

from workbench.errors import WorkbenchError
from workbench.loaders.entity_grouping import inferred_entity_id
from workbench.replace import pseudonymise
from workbench.store import RunRecord, RunStore

FORMATS = ("tab", "intact", "doccano", "csv", "parquet")
MASKED_FORMAT = "[MASKED:{label}]"  # a span an unfinished run has not generated yet

# Line separators JSON leaves raw but line splitters break at (as workbench.jsonl escapes them).
_JSONL_ESCAPES = str.maketrans({"\u2028": "\\u2028", "\u2029": "\\u2029", "\x85": "\\u0085"})


def _jsonl_line(value) -> str:
    try:
        from workbench.jsonl import dumps
    except ImportError:  # the shared JSONL module not there: the same escaping here
        return json.dumps(value, ensure_ascii=False).translate(_JSONL_ESCAPES)
    return dumps(value)


def _stated_entity(doc, span) -> list[str]:
    """[entity id] when the corpus file stated the span's entity, so a reload keeps the entity
    (the pseudonymised text no longer groups its mentions); [] for the grouping rule's."""
    if span.entity_id == inferred_entity_id(doc.doc_id, span.label, span.text):
        return []
    prefix = f"{doc.doc_id}|"  # the doccano loader puts the document's id in front again
    return [span.entity_id[len(prefix):] if span.entity_id.startswith(prefix) else span.entity_id]


def unfilled_spans(store: RunStore, run: RunRecord) -> int:
    """How many spans of the run have no prediction yet (0 for a complete run)."""
    return 0 if run.status == "complete" else max(run.n_slots - store.count_predictions(run.run_id), 0)


def _check_finished(store: RunStore, run: RunRecord, unfinished: bool) -> None:
    if run.status == "complete" or unfinished:
        return
    done = store.count_predictions(run.run_id)
    raise WorkbenchError(
        f"run {run.run_id} is not complete ({done}/{run.n_slots} spans generated); an export would hold the "
        "original text of the spans not generated yet. Resume it (run the same `workbench generate` command "
        "again), or pass --unfinished to export what exists with those spans masked")


def _by_document(store: RunStore, run: RunRecord, unfinished: bool):
    """The corpus and, per document, span index -> what to write (unfilled spans masked)."""
    corpus = store.load_corpus(run.corpus_hash)
    preds: dict[str, dict[int, str]] = {}
    for p in store.predictions(run.run_id):
        preds.setdefault(p.doc_id, {})[p.span_index] = p.pseudonym
    if unfinished and run.status != "complete":
        for d in corpus.documents:
            mine = preds.setdefault(d.doc_id, {})
            for i in d.masked_spans:
                mine.setdefault(i, MASKED_FORMAT.format(label=d.spans[i].label))
    return corpus, preds


def export_run(store: RunStore, run_id: str, fmt: str, path: str | Path, *, unfinished: bool = False) -> Path:
    """Write the run (id or unique prefix) to `path` in `fmt`, all or nothing; returns the path."""
    if fmt not in FORMATS:
        raise WorkbenchError(f"unknown export format {fmt!r} (known: {', '.join(FORMATS)})")
    run = store.resolve_run(run_id)
    _check_finished(store, run, unfinished)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".partial")  # never leave a half-written export behind
    try:
        _write(store, run, fmt, tmp, unfinished)
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def _write(store: RunStore, run: RunRecord, fmt: str, tmp: Path, unfinished: bool) -> None:
    if fmt in ("csv", "parquet"):
        from workbench.tidy_frame import run_frame  # pandas: only for these formats
        frame = run_frame(store, [run.run_id])  # rows exist only for generated spans
        frame.to_csv(tmp, index=False) if fmt == "csv" else frame.to_parquet(tmp, index=False)
        return
    corpus, preds = _by_document(store, run, unfinished)
    if fmt == "tab":
        data = {d.doc_id: [[d.spans[i].start, d.spans[i].end] for i in sorted(preds.get(d.doc_id, {}))]
                for d in corpus.documents}
        tmp.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    elif fmt == "intact":
        data = {d.doc_id: [[d.spans[i].start, d.spans[i].end, p] for i, p in sorted(preds.get(d.doc_id, {}).items())]
                for d in corpus.documents}
        tmp.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    else:
        with tmp.open("w", encoding="utf-8", newline="\n") as out:
            for d in corpus.documents:
                text, placed = pseudonymise(d, preds.get(d.doc_id, {}))
                # A suppressed span (empty replacement) leaves nothing to label: no zero-width label.
                line = {"text": text, "label": [[r.start, r.end, d.spans[r.span_index].label]
                                                + _stated_entity(d, d.spans[r.span_index]) for r in placed
                                                if r.end > r.start],
                        "run_id": run.run_id, "doc_id": d.doc_id, "lang": d.lang}
                out.write(_jsonl_line(line) + "\n")
