"""UPOS accuracy: the replacement's UPOS tagged in context vs the original's (003 Table 3).

The original's UPOS (frame.original_upos) was tagged in the whole original document,
right-most token (003 §4). The replacement's is tagged the same way in the whole
pseudonymised document, by the same tagger; where the run already recorded the pick's
UPOS (pick_upos: the UPOS filter tagged it, or the UPOS baseline's PUD gold tag) that
is used instead, unless MetricConfig.upos_source is "context" (003's 93.4% for its
UPOS baseline, "7% due to tagger inconsistencies", suggests 003 tagged everything in
context). A FAILED span counts as wrong. Spans whose original has no UPOS (no
token found) are left out of the denominator.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.metrics.base import HIGHER, MetricInfo, per_run
from workbench.metrics.frame import document_views

FAMILY = "upos"
METRICS = (
    MetricInfo("upos_accuracy", "UPOS acc.", FAMILY, 0, 1, HIGHER, "003 Table 3",
               "share of spans whose replacement has the original's UPOS, tagged in context"),
)


def replacement_upos(frame: pd.DataFrame, context) -> pd.Series:
    """UPOS of each row's replacement: pick_upos when recorded, else tagged in the pseudonymised document."""
    tags = pd.Series(None, index=frame.index, dtype=object)
    if context.config.upos_source == "pick":
        tags = pd.Series(frame["pick_upos"].where(frame["pick_upos"].notna(), None), index=frame.index, dtype=object)
    need = frame.index[tags.isna() & ~frame["failed"].astype(bool) & frame["original_upos"].notna()]
    if len(need):
        need_set = set(need)
        docs = set(zip(frame.loc[need, "run_id"], frame.loc[need, "doc_id"]))
        in_docs = frame[[k in docs for k in zip(frame["run_id"], frame["doc_id"])]]
        # Per (tagger, language): one batched call over whole pseudonymised documents (every
        # span of the run replaced, as the reader sees it). The tagger bounds its own batches'
        # memory (workbench/upos/spacy_backend.py), so all of TAB can go in one call.
        queries: dict[tuple[object, str], list[tuple[int, tuple[str, int, int]]]] = {}
        taggers = {sig: context.tagger_for(sig) for sig in in_docs["signature"].unique()}
        for view in document_views(in_docs):
            tagger = taggers[frame.at[view.rows[0], "signature"]]
            queries.setdefault((tagger, view.lang), []).extend(
                (row, (view.pseudo_text, a, b)) for row, (a, b) in zip(view.rows, view.placed) if row in need_set)
        for (tagger, lang), items in queries.items():
            for (row, _), tag in zip(items, tagger.tag_ranges(lang, [q for _, q in items])):
                tags.at[row] = tag
    return tags


def compute(frame: pd.DataFrame, context) -> pd.DataFrame:
    tags = replacement_upos(frame, context)
    known = frame["original_upos"].notna()
    correct = pd.Series(np.where(known, (tags == frame["original_upos"]) & ~frame["failed"].astype(bool), np.nan),
                        index=frame.index)
    return pd.DataFrame({"upos_accuracy": per_run(frame, correct)})
