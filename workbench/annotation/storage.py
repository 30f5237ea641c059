"""Error annotations in the run store: who gave which tag to which pseudonym.

The tables live in the same SQLite file as the runs they annotate, and in the same
versioned schema (workbench/store/schema.py: one user_version, one migration sequence):

    annotations         the current tag per (run, document, span, annotator)
    annotation_log      every save ever made, append-only: an overwrite loses nothing
    annotation_samples  which spans a session annotates, in which order (see sampling)

Concurrency: every annotator (a dashboard session, an import, a doccano pull) holds its
own connection; each save is one BEGIN IMMEDIATE transaction, and SQLite's busy timeout
(workbench.store.BUSY_TIMEOUT_S) makes a second writer wait instead of failing. Different
annotators write different rows, so two people saving at the same moment both keep
their work; the same annotator saving twice keeps the later tag and both log entries.
The rows are written and read by workbench.store.annotations (which also defines the
Annotation and SampleItem records); this module checks what is saved.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path

# Not `from workbench.store import annotations`: that finds the package's own
# `from __future__ import annotations` name instead of the module.
import workbench.store.annotations as annotation_rows
from workbench.annotation.tagset import Tagset, load_tagset
from workbench.infra.errors import WorkbenchError
from workbench.store import RunStore
from workbench.store.annotations import Annotation, SampleItem

__all__ = ["JUDGE_PREFIX", "SOURCES", "Annotation", "AnnotationStore", "SampleItem", "is_judge"]


SOURCES = ("dashboard", "jsonl", "doccano", "api", "judge", "simulated")
# Annotator names with this prefix are LLM judges (workbench.annotation.judge): agreement reports
# them against the people, and the majority of Table 6 leaves them out.
JUDGE_PREFIX = "judge:"


def is_judge(annotator: str) -> bool:
    return annotator.startswith(JUDGE_PREFIX)


def _check_annotator(name: str) -> str:
    name = (name or "").strip()
    if not name:
        raise WorkbenchError("an annotation needs an annotator name")
    if len(name) > 64 or any(c in name for c in "\n\t/\\"):
        raise WorkbenchError(f"annotator name {name!r}: at most 64 characters, no slashes, tabs or newlines")
    return name


class AnnotationStore:
    """Annotation access over one run store; open one per annotator/thread/process."""

    def __init__(self, store: RunStore | str | Path, tagset: Tagset | None = None) -> None:
        self.run_store = store if isinstance(store, RunStore) else RunStore(store)
        self._owns = not isinstance(store, RunStore)
        self.tagset = tagset or load_tagset()

    def close(self) -> None:
        if self._owns:
            self.run_store.close()

    # -- validation ------------------------------------------------------------------
    def _check(self, a: Annotation, where: str = "") -> Annotation:
        prefix = f"{where}: " if where else ""
        if a.tag not in self.tagset:
            raise WorkbenchError(f"{prefix}run {a.run_id[:12]}, document {a.doc_id}, span {a.span_index}: unknown tag "
                                 f"{a.tag!r} (tagset {self.tagset.name}: {', '.join(self.tagset.names)})")
        if a.source not in SOURCES:
            raise WorkbenchError(f"{prefix}unknown annotation source {a.source!r} (known: {', '.join(SOURCES)})")
        if a.source == "dashboard" and is_judge(a.annotator.strip()):
            raise WorkbenchError(f"{prefix}annotator names starting with {JUDGE_PREFIX!r} are kept for LLM judges; "
                                 "choose another name")
        if a.suggested_tag and (a.suggested_tag not in self.tagset or not is_judge(a.suggested_by)):
            raise WorkbenchError(f"{prefix}a suggestion needs a tag of the tagset and the judge that made it, not "
                                 f"{a.suggested_tag!r} by {a.suggested_by!r}")
        if not self.run_store.has_prediction(a.run_id, a.doc_id, a.span_index):
            raise WorkbenchError(f"{prefix}run {a.run_id[:12]}, document {a.doc_id}, span {a.span_index}: no such "
                                 f"pseudonym in {self.run_store.path}")
        return replace(a, annotator=_check_annotator(a.annotator), note=(a.note or "").strip())

    # -- writing ---------------------------------------------------------------------
    def save(self, annotation: Annotation) -> Annotation:
        return self.save_many([annotation])[0]

    def save_many(self, annotations: Sequence[Annotation], where: Sequence[str] | None = None) -> list[Annotation]:
        """All or nothing, in one transaction; `where` names each input (file:line) for errors."""
        checked = [self._check(a, where[i] if where else "") for i, a in enumerate(annotations)]
        now = time.time()
        stored = [replace(a, updated=now) for a in checked]
        annotation_rows.save_annotations(self.run_store, stored, now)
        return stored

    # -- reading ---------------------------------------------------------------------
    def annotations(self, run_ids: Iterable[str] | None = None, annotators: Iterable[str] | None = None
                    ) -> list[Annotation]:
        return annotation_rows.select_annotations(self.run_store, run_ids, annotators)

    def get(self, item: tuple[str, str, int], annotator: str) -> Annotation | None:
        return annotation_rows.get_annotation(self.run_store, item, annotator)

    def annotators(self) -> list[str]:
        return annotation_rows.annotator_names(self.run_store)

    def logged(self, item: tuple[str, str, int], annotator: str) -> list[Annotation]:
        """Every save of the annotator's tag for the item, oldest first."""
        return annotation_rows.logged_annotations(self.run_store, item, annotator)

    def log_size(self) -> int:
        return annotation_rows.log_size(self.run_store)

    # -- samples ---------------------------------------------------------------------
    def create_sample(self, name: str, items: Sequence[SampleItem], recipe: dict) -> None:
        name = (name or "").strip()
        if not name:
            raise WorkbenchError("a sample needs a name")
        if not items:
            raise WorkbenchError(f"sample {name!r} would be empty")
        annotation_rows.create_sample(self.run_store, name, items, recipe)

    def samples(self) -> list[tuple[str, dict, int]]:
        """(name, recipe, size) of every sample, oldest first."""
        return annotation_rows.samples(self.run_store)

    def sample(self, name: str) -> list[SampleItem]:
        items = annotation_rows.sample_items(self.run_store, name)
        if not items:
            known = [n for n, _, _ in self.samples()]
            choose = (f"samples: {', '.join(known)}" if known else
                      "none yet: draw one with `workbench annotations sample NAME -r RUN`")
            raise WorkbenchError(f"no sample named {name!r} in {self.run_store.path} ({choose})")
        return items

    def done_positions(self, name: str, annotator: str) -> set[int]:
        return annotation_rows.done_positions(self.run_store, name, annotator)

    def resume_position(self, name: str, annotator: str) -> int:
        """Where the annotator stopped: the first item they have not tagged (the size when all are done)."""
        done, size = self.done_positions(name, annotator), len(self.sample(name))
        return next((i for i in range(size) if i not in done), size)
