"""Simulated annotators: a seeded rule over the data, to measure an LLM judge before people annotate.

No person tags anything here, and the figures they give are no substitute for a human session:
they show that the judge's path from sample to kappa works, and how far a judge is from a
simple, explicit reading of 003's tagset. Each simulated annotator starts from one rule
(rule_tag, the checks a linguist would start from, in Appendix C's precedence order) and,
with probability `flip` per pseudonym, gives another tag drawn uniformly from the rest
instead, seeded by (seed, annotator name, item), so two simulated annotators disagree with
each other as people do, and the same command gives the same tags.

The rule, first that applies (GRAMMAR needs a reader and is never given):
    FAILED             the generator gave no pseudonym
    OVERLAP            the pseudonym shares a word with the original (003's partial overlap)
    POS                the pick's UPOS differs from the original's (both known)
    STRUCTURAL         the pseudonym starts with no letter or digit (punctuation in place of a word)
    SEM:CATEGORY       the original starts with a capital and the pseudonym does not, or the other way
    SEM:CONTRADICTORY  an earlier mention of the same entity in the document got another pseudonym
    SEM:MERGED-ENTITY  another entity of the document got the same pseudonym
    NO_ERROR           none of the above
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from workbench.annotation.storage import Annotation, AnnotationStore, SampleItem
from workbench.infra.errors import WorkbenchError
from workbench.text.overlap_rules import partial_overlap

DEFAULT_NAMES = ("sim-1", "sim-2")
DEFAULT_FLIP = 0.2


def rule_tag(row, earlier: dict[str, str], taken: dict[str, str]) -> str:
    """The rule's tag for one span row of the tidy frame. `earlier`: entity → the pseudonym of its
    earlier mentions in the document; `taken`: pseudonym (lower case) → the entity it was given to."""
    if row.failed:
        return "FAILED"
    if partial_overlap(row.pseudonym, row.original):
        return "OVERLAP"
    if row.pick_upos and row.original_upos and row.pick_upos != row.original_upos:
        return "POS"
    if not row.pseudonym[:1].isalnum():
        return "STRUCTURAL"
    if row.pseudonym[:1].isupper() != row.original[:1].isupper():
        return "SEM:CATEGORY"
    if row.entity_id in earlier and earlier[row.entity_id] != row.pseudonym:
        return "SEM:CONTRADICTORY"
    if taken.get(row.pseudonym.lower(), row.entity_id) != row.entity_id:
        return "SEM:MERGED-ENTITY"
    return "NO_ERROR"


def rule_tags(annotations: AnnotationStore, items: Sequence[SampleItem]) -> dict[tuple[str, str, int], str]:
    """The rule's tag for each item, read with the earlier mentions of its document in span order."""
    from workbench.store.tidy_frame import run_frame

    wanted = {(it.run_id, it.doc_id, it.span_index) for it in items}
    frame = run_frame(annotations.run_store, sorted({it.run_id for it in items}))
    tags = {}
    for _, doc in frame.sort_values(["run_id", "doc_id", "span_index"]).groupby(["run_id", "doc_id"], sort=False):
        earlier: dict[str, str] = {}
        taken: dict[str, str] = {}
        for row in doc.itertuples():
            key = (row.run_id, row.doc_id, row.span_index)
            if key in wanted:
                tags[key] = rule_tag(row, earlier, taken)
            if not row.failed:
                earlier.setdefault(row.entity_id, row.pseudonym)
                taken.setdefault(row.pseudonym.lower(), row.entity_id)
    return tags


def simulate(annotations: AnnotationStore, items: Sequence[SampleItem], names: Sequence[str] = DEFAULT_NAMES,
             flip: float = DEFAULT_FLIP, seed: int = 0) -> list[Annotation]:
    """Tag the items as each simulated annotator and store the tags (source "simulated")."""
    if not 0.0 <= flip <= 1.0:
        raise WorkbenchError(f"flip must be a probability within 0..1, not {flip}")
    if not names:
        raise WorkbenchError("name at least one simulated annotator")
    tags = rule_tags(annotations, items)
    tagset = annotations.tagset.names
    made = []
    for name in names:
        for it in items:
            key = (it.run_id, it.doc_id, it.span_index)
            rng = random.Random(f"{seed}|{name}|{it.run_id}|{it.doc_id}|{it.span_index}")
            tag = tags[key]
            if rng.random() < flip:
                tag = rng.choice([t for t in tagset if t != tag])
            made.append(Annotation(*key, name, tag, "", "simulated"))
    return annotations.save_many(made)
