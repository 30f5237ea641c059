"""Helpers shared by the dashboard tests (a module of its own: tests/ is not a package).

`simulate` stands in for two human annotators: the tags are made programmatically
through the storage API (no person tagged anything). Annotator "rule" tags by simple
checks a linguist would start from (failure, overlap with the original, UPOS mismatch,
else a capitalisation-based guess); annotator "second" agrees with "rule" except on a
seeded random fifth of the pseudonyms, where it picks another tag. That gives agreement
well above chance and below 1, which is what the kappa, Table 6 and Figure 2 code must handle.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

from entry_point import WORKBENCH  # noqa: F401  (re-exported for the dashboard tests)

from workbench.annotation import Annotation, AnnotationStore, load_tagset
from workbench.annotation.sampling import SampleRecipe, draw_sample
from workbench.frame import run_frame
from workbench.overlap import partial_overlap

PAGES = Path(__file__).resolve().parents[2] / "workbench" / "dashboard"


def copy_store(src: Path, dst_dir: Path) -> Path:
    """The session baseline store must not be written: tests annotate a copy."""
    dst = dst_dir / "runs.sqlite"
    shutil.copy(src, dst)
    return dst


def pgv_runs(store: AnnotationStore) -> list[str]:
    return [r.run_id for r in store.runs.runs() if r.corpus_name in ("pgv-pii-en", "pgv-pii-sv")]


def rule_tag(row) -> str:
    if row.failed:
        return "FAILED"
    if partial_overlap(row.pseudonym, row.original):
        return "OVERLAP"
    if row.pick_upos and row.original_upos and row.pick_upos != row.original_upos:
        return "POS"
    if not row.pseudonym[:1].isalnum():
        return "STRUCTURAL"
    return "NO_ERROR" if row.pseudonym[:1].isupper() == row.original[:1].isupper() else "SEM:CATEGORY"


def simulate(path: Path, sample: str = "session", per_run: int = 15, flip: float = 0.2) -> list:
    store = AnnotationStore(path)
    tagset = load_tagset()
    items = draw_sample(store.runs, SampleRecipe(tuple(pgv_runs(store)), per_run, "document", 0))
    store.create_sample(sample, items, {"runs": pgv_runs(store), "unit": "document"})
    frame = run_frame(store.runs, pgv_runs(store)).set_index(["run_id", "doc_id", "span_index"])
    rng = random.Random(7)
    first, second = [], []
    for it in items:
        row = frame.loc[(it.run_id, it.doc_id, it.span_index)]
        tag = rule_tag(row)
        first.append(Annotation(it.run_id, it.doc_id, it.span_index, "rule", tag, "", "api"))
        other = rng.choice([t for t in tagset.names if t != tag]) if rng.random() < flip else tag
        second.append(Annotation(it.run_id, it.doc_id, it.span_index, "second", other, "", "api"))
    store.save_many(first)
    store.save_many(second)
    store.close()
    return items
