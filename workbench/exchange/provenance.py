"""The provenance export (issue 41 item 4): how each span of a run was replaced, with the key apart.

`workbench export RUN --format provenance -o out/run.json [--inline]` writes

    out/run.json                     the pseudonymised documents and, stand-off, one record per span:
                                     offsets in the pseudonymised text, label, the pseudonym, the
                                     entity's export key (DOC|e001), the generator, its settings and
                                     seed, and `replacement`: realistic | mark | kept (below)
    out/run.inline.txt               with --inline: each document with its spans marked in the text
                                     (INLINE below)
    out/run.KEY-personal-data.json   the key: original <-> pseudonym per span, the only file that
                                     holds anything of the originals; the command warns about it

A span's `replacement`:
    mark       a category mark, not a name a reader could take for real (SweLL's `@FirstName`,
               Mormor Karl's placeholders): the `label` and `label-numbered` reference runs, the
               `suppress` run and any suppressed span (empty), a FAILED span (`[FAILED]`), a span an
               unfinished run has not generated (`[MASKED:LABEL]`), and a replacement that is the
               span's label as other systems write one: `PERSON`, `PERSON_2`, `[PERSON]`, `<PERSON>`,
               `@PERSON`, `{PERSON}` (case ignored)
    kept       the `original` reference run: every span keeps its text (it is no release)
    realistic  anything else: a surrogate meant to read as a real value
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from workbench.exchange.export_formats import ExportFormat
from workbench.exchange.exporters import _by_document, document_entity_keys
from workbench.exchange.reference import reference_kind
from workbench.prediction_notes import FAILED
from workbench.store import RunRecord, RunStore
from workbench.store.own_detections import own_detections
from workbench.store.signature import REFERENCE
from workbench.text.replace import pseudonymise

REALISTIC, MARK, KEPT = "realistic", "mark", "kept"
FORMAT_VERSION = "workbench-provenance/1"
KEY_SUFFIX = ".KEY-personal-data.json"
INLINE_SUFFIX = ".inline.txt"
# Inline marks: `[Sven]{PERSON}` for a realistic replacement, `[PERSON_1]{PERSON|mark}` for a mark.
# SweLL's published files keep pseudonyms in their XML attributes, not in a plain-text
# convention; this bracket form (as in Markdown-style span annotation) is one a reader and a
# regex both read. The characters \ [ ] { } of the text are written escaped with a backslash,
# so every `[`…`]{`…`}` in the file is a mark.
INLINE = "[{text}]{{{label}}}"
_ESCAPE = str.maketrans({c: "\\" + c for c in "\\[]{}"})
KEY_WARNING = ("holds the original text of every span (personal data): keep it apart from the "
               "pseudonymised text and never share it with the corpus")


def key_path(path: Path) -> Path:
    return path.with_name(path.stem + KEY_SUFFIX)


def inline_path(path: Path) -> Path:
    return path.with_name(path.stem + INLINE_SUFFIX)


def _is_label_mark(text: str, label: str) -> bool:
    pattern = r"[\[<@{]?" + re.escape(label) + r"(?:[_ -]?\d+)?[\]>}]?"
    return re.fullmatch(pattern, text.strip(), re.IGNORECASE) is not None


def replacement_kind(run: RunRecord, label: str, pseudonym: str, failed: bool, masked: bool) -> str:
    """realistic | mark | kept for one span (the module's docstring)."""
    if run.source == REFERENCE:
        return KEPT if reference_kind(run.generator).keeps_text else MARK
    if failed or masked or not pseudonym.strip() or _is_label_mark(pseudonym, label):
        return MARK
    return REALISTIC


def inline_text(text: str, spans: list[dict]) -> str:
    """The pseudonymised text with each span marked (INLINE), the rest escaped."""
    out, cursor = [], 0
    for s in sorted(spans, key=lambda s: s["start"]):
        out.append(text[cursor:s["start"]].translate(_ESCAPE))
        label = s["label"] + ("|mark" if s["replacement"] == MARK else "")
        out.append(INLINE.format(text=text[s["start"]:s["end"]].translate(_ESCAPE), label=label.translate(_ESCAPE)))
        cursor = s["end"]
    out.append(text[cursor:].translate(_ESCAPE))
    return "".join(out)


class Provenance(ExportFormat):
    name = "provenance"
    takes_inline = True

    def __init__(self, inline: bool = False) -> None:
        self.inline = inline

    def companions(self, path: Path) -> dict[str, Path]:
        return {"key": key_path(path), **({"inline": inline_path(path)} if self.inline else {})}

    def write(self, store: RunStore, run: RunRecord, path: Path, *, unfinished: bool, with_originals: bool) -> None:
        corpus, preds = _by_document(store, run, unfinished)
        # (doc_id, span index) -> FAILED, for the spans generated; the others an unfinished run masked.
        stored = {(p.doc_id, p.span_index): p.failed for p in store.predictions(run.run_id)}
        outside = own_detections(store, run.run_id)
        described = {"generator": run.generator, "model": run.model, "settings": run.config, "seed": run.seed}
        documents, key, inline = [], [], []
        for d in corpus.documents:
            mine = preds.get(d.doc_id, {})
            text, placed = pseudonymise(d, mine, outside.get(d.doc_id, ()))
            entities = document_entity_keys(d)
            spans = []
            for r in placed:
                span = d.spans[r.span_index]
                masked = (d.doc_id, r.span_index) not in stored
                is_failed = stored.get((d.doc_id, r.span_index), False) or r.pseudonym == FAILED
                entity = f"{d.doc_id}|{entities[span.entity_id]}" if span.entity_id in entities else None
                spans.append({"doc_id": d.doc_id, "start": r.start, "end": r.end, "label": span.label,
                              "pseudonym": r.pseudonym, "entity": entity,
                              "replacement": replacement_kind(run, span.label, r.pseudonym, is_failed, masked),
                              **described})
                key.append({"doc_id": d.doc_id, "start": r.start, "end": r.end, "label": span.label,
                            "entity": entity, "pseudonym": r.pseudonym, "original": span.text,
                            "original_start": span.start, "original_end": span.end})
            documents.append({"doc_id": d.doc_id, "lang": d.lang, "text": text, "spans": spans})
            if self.inline:
                inline.append(f"# {d.doc_id}\n{inline_text(text, spans)}\n")
        header = {"format": FORMAT_VERSION, "run_id": run.run_id, "source": run.source, "options": run.options,
                  "signature": run.signature, **described}
        _write_json(path, {**header, "documents": documents})
        companions = self.companions(path)
        _write_json(companions["key"], {"format": FORMAT_VERSION, "warning": f"this file {KEY_WARNING}",
                                        "run_id": run.run_id, "entries": key})
        if self.inline:
            companions["inline"].write_text("\n".join(inline), encoding="utf-8", newline="\n")


def _write_json(path: Path, data) -> None:
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
