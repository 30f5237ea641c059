"""The export formats, one class each, registered by name in workbench.exchange.exporters.EXPORT_FORMATS
(what each holds: that module's docstring). A format writes a finished (or, with unfinished,
masked) run to a temporary path; export_run renames it into place, all or nothing."""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from pathlib import Path
from typing import ClassVar

from workbench.exchange.exporters import (
    _by_document,
    _jsonl_line,
    _stated_entity,
    document_entity_keys,
    export_frame,
)
from workbench.store import RunRecord, RunStore
from workbench.store.own_detections import own_detections
from workbench.text.replace import pseudonymise


class ExportFormat(ABC):
    name: ClassVar[str]
    with_originals: ClassVar[bool] = False  # whether --with-originals changes what it writes
    takes_inline: ClassVar[bool] = False  # whether --inline applies (the class then takes inline=)

    def companions(self, path: Path) -> dict[str, Path]:
        """What else `write` writes beside `path`, by kind, named after it (the provenance key)."""
        return {}

    @abstractmethod
    def write(self, store: RunStore, run: RunRecord, path: Path, *, unfinished: bool, with_originals: bool) -> None:
        ...


class _Frame(ExportFormat):
    with_originals = True

    def write(self, store: RunStore, run: RunRecord, path: Path, *, unfinished: bool, with_originals: bool) -> None:
        self.save(export_frame(store, run, with_originals), path)

    @abstractmethod
    def save(self, frame, path: Path) -> None:
        ...


class Csv(_Frame):
    name = "csv"

    def save(self, frame, path: Path) -> None:
        frame.to_csv(path, index=False)


class Parquet(_Frame):
    name = "parquet"

    def save(self, frame, path: Path) -> None:
        frame.to_parquet(path, index=False)


class _Offsets(ExportFormat):
    """{doc_id: [[start, end(, replacement)], …]}; an imported run's own detections (edits outside
    every span) are written too, so that the file is the document the system wrote and importing
    it again gives the same run."""

    def write(self, store: RunStore, run: RunRecord, path: Path, *, unfinished: bool, with_originals: bool) -> None:
        corpus, preds = _by_document(store, run, unfinished)
        outside = own_detections(store, run.run_id)
        data = {d.doc_id: sorted([self.entry(d.spans[i].start, d.spans[i].end, p)
                                  for i, p in preds.get(d.doc_id, {}).items()]
                                 + [self.entry(a, b, text) for a, b, text in outside.get(d.doc_id, ())])
                for d in corpus.documents}
        path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")

    @abstractmethod
    def entry(self, start: int, end: int, replacement: str) -> list:
        ...


class TabSpans(_Offsets):
    name = "tab"

    def entry(self, start: int, end: int, replacement: str) -> list:
        return [start, end]


class IntactReplacements(_Offsets):
    name = "intact"

    def entry(self, start: int, end: int, replacement: str) -> list:
        return [start, end, replacement]


class Doccano(ExportFormat):
    name = "doccano"
    with_originals = True

    def write(self, store: RunStore, run: RunRecord, path: Path, *, unfinished: bool, with_originals: bool) -> None:
        corpus, preds = _by_document(store, run, unfinished)
        outside = own_detections(store, run.run_id)
        with path.open("w", encoding="utf-8", newline="\n") as out:
            for d in corpus.documents:
                text, placed = pseudonymise(d, preds.get(d.doc_id, {}), outside.get(d.doc_id, ()))
                keys = None if with_originals else document_entity_keys(d)
                # A suppressed span (empty replacement) leaves nothing to label: no zero-width label.
                line = {"text": text, "label": [[r.start, r.end, d.spans[r.span_index].label]
                                                + _stated_entity(d, d.spans[r.span_index], keys) for r in placed
                                                if r.end > r.start],
                        "run_id": run.run_id, "doc_id": d.doc_id, "lang": d.lang}
                out.write(_jsonl_line(line) + "\n")
