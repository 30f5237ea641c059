"""Helpers shared by the annotation and dashboard tests (a module of its own: tests/ is not a package).

`simulate` stands in for two human annotators: the tags are made programmatically through the
storage API (no person tagged anything). Annotator "rule" tags as the library's rule does
(workbench.annotation.judge_simulated.rule_tags: failure, overlap with the original, UPOS
mismatch, capitalisation, contradictory and merged entities); annotator "second" agrees with
"rule" except on a seeded random fifth of the pseudonyms, where it picks another tag. That gives
agreement well above chance and below 1, which is what the kappa, Table 6 and Figure 2 code must
handle.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

from workbench.annotation import Annotation, AnnotationStore, load_tagset
from workbench.annotation.judge_simulated import rule_tags
from workbench.annotation.sampling import SampleRecipe, draw_sample


def copy_store(src: Path, dst_dir: Path) -> Path:
    """The session baseline store must not be written: tests annotate a copy."""
    dst = dst_dir / "runs.sqlite"
    shutil.copy(src, dst)
    return dst


def pgv_runs(store: AnnotationStore) -> list[str]:
    return [r.run_id for r in store.run_store.runs() if r.corpus_name in ("pgv-pii-en", "pgv-pii-sv")]


def simulate(path: Path, sample: str = "session", per_run: int = 15, flip: float = 0.2) -> list:
    store = AnnotationStore(path)
    tagset = load_tagset()
    items = draw_sample(store.run_store, SampleRecipe(tuple(pgv_runs(store)), per_run, "document", 0))
    store.create_sample(sample, items, {"runs": pgv_runs(store), "unit": "document"})
    tags = rule_tags(store, items)
    rng = random.Random(7)
    first, second = [], []
    for it in items:
        tag = tags[it.run_id, it.doc_id, it.span_index]
        first.append(Annotation(it.run_id, it.doc_id, it.span_index, "rule", tag, "", "api"))
        other = rng.choice([t for t in tagset.names if t != tag]) if rng.random() < flip else tag
        second.append(Annotation(it.run_id, it.doc_id, it.span_index, "second", other, "", "api"))
    store.save_many(first)
    store.save_many(second)
    store.close()
    return items
