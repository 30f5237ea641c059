"""Writing a stored run in the formats other tools read.

tab      {doc_id: [[start, end], …]}: the spans masked, as TAB's evaluation script takes them
intact   {doc_id: [[start, end, replacement], …]}: original offsets with their replacement
doccano  JSONL: the pseudonymised text, each replacement a span labelled with its original
         label; metadata run_id/doc_id so annotation can come back (see workbench.annotation)
csv / parquet: the tidy frame (workbench.frame)
"""

from __future__ import annotations

import json
from pathlib import Path

from workbench.errors import WorkbenchError
from workbench.frame import run_frame
from workbench.replace import pseudonymise
from workbench.store import RunStore

FORMATS = ("tab", "intact", "doccano", "csv", "parquet")


def _by_document(store: RunStore, run_id: str):
    run = store.run(run_id)
    corpus = store.load_corpus(run.corpus_hash)
    preds: dict[str, dict[int, str]] = {}
    for p in store.predictions(run.run_id):
        preds.setdefault(p.doc_id, {})[p.span_index] = p.pseudonym
    return run, corpus, preds


def export_run(store: RunStore, run_id: str, fmt: str, path: str | Path) -> Path:
    if fmt not in FORMATS:
        raise WorkbenchError(f"unknown export format {fmt!r} (known: {', '.join(FORMATS)})")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".partial")  # never leave a half-written export behind
    if fmt in ("csv", "parquet"):
        frame = run_frame(store, [run_id])
        frame.to_csv(tmp, index=False) if fmt == "csv" else frame.to_parquet(tmp, index=False)
    else:
        run, corpus, preds = _by_document(store, run_id)
        if fmt == "tab":
            data = {d.doc_id: [[d.spans[i].start, d.spans[i].end] for i in sorted(preds.get(d.doc_id, {}))]
                    for d in corpus.documents}
            tmp.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
        elif fmt == "intact":
            data = {d.doc_id: [[d.spans[i].start, d.spans[i].end, p] for i, p in sorted(preds.get(d.doc_id, {}).items())]
                    for d in corpus.documents}
            tmp.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
        else:
            with tmp.open("w", encoding="utf-8") as out:
                for d in corpus.documents:
                    text, placed = pseudonymise(d, preds.get(d.doc_id, {}))
                    line = {"text": text, "label": [[r.start, r.end, d.spans[r.span_index].label] for r in placed],
                            "run_id": run.run_id, "doc_id": d.doc_id, "lang": d.lang}
                    out.write(json.dumps(line, ensure_ascii=False) + "\n")
    tmp.replace(path)
    return path
