"""UPOS accuracy: the replacement's UPOS vs the original's (003 Table 3).

One definition for every run, the paper's: the original's UPOS (frame.original_upos) was
tagged in the whole original document, right-most token (003 §4); the replacement's is
tagged the same way in the whole pseudonymised document, by the same tagger. 003's 93.4 %
for its UPOS baseline ("7 % due to tagger inconsistencies") is this figure: its baseline's
picks carry PUD gold tags, yet they are scored as tagged in context. So a native run and
the same replacements exported and imported score the same.

`upos_accuracy_pick` is the other reading, under its own name: where a run recorded the
UPOS of its pick (pick_upos: the UPOS filter's tag, or the UPOS baseline's PUD gold tag)
that tag is taken instead of the one in context. It says how often a generator got what it
asked for, not how the reader's tagger sees the result; an imported run has no recorded
tags, so there it equals upos_accuracy.

A FAILED span counts as wrong, and so does a suppressed span (empty replacement): no word
of the original's category is left in the sentence. Spans whose original has no UPOS (no
token found) are left out of the denominator.

`upos_tagger_contradiction` checks the tagger behind both (issue 24): the share of spans whose
original's UPOS contradicts what its label implies (a personal name tagged VERB; the table
of plausible UPOS per label is workbench/upos/label_upos.py). It depends on the corpus and
the tagger, not on the generator; where it is high, UPOS accuracy partly rewards agreeing
with the tagger's mistakes. Spans of labels that imply no UPOS, or whose original has none,
are left out of its denominator.

The name rule (issue 42, workbench/upos/label_upos.py): a span labelled a personal name is judged
against PROPN whatever the tagger read for the original (a replacement `Anna` for `Lis`, tagged
VERB, was right; now a PROPN is). `upos_tagger_name_propn` is the tagger's agreement with the
span labels: the share of name spans it reads as PROPN (or PART, the English possessive) itself,
per run, so per corpus and language (PGV-PII SV 147 of 242 with the spaCy UD tagger).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from workbench.metrics.base import HIGHER, NEUTRAL, MetricInfo, per_run, remembered
from workbench.metrics.metric_frame import document_views
from workbench.upos.label_upos import contradicts, is_name_label, name_rule

if TYPE_CHECKING:
    from workbench.upos.base import Tagger

FAMILY = "upos"
# What of MetricConfig.describe() it reads, the models it loads (workbench.metrics.model_use).
MODEL_SETTINGS = ("tagger",)
METRICS = (
    MetricInfo("upos_accuracy", "UPOS acc.", FAMILY, 0, 1, HIGHER, "003 Table 3",
               "share of spans whose replacement, tagged in the pseudonymised document, has the original's UPOS"),
    MetricInfo("upos_accuracy_pick", "UPOS acc. (pick)", FAMILY, 0, 1, HIGHER, "beyond 003",
               "as upos_accuracy, but a UPOS the run recorded for its pick (UPOS filter, PUD gold tag) is "
               "taken instead of the tag in context"),
    MetricInfo("upos_tagger_contradiction", "tagger contra.", FAMILY, 0, 1, NEUTRAL, "beyond 003",
               "share of spans whose original's UPOS (the tagger's) contradicts its label, e.g. a personal name "
               "tagged VERB (labels that imply no UPOS are left out): how far UPOS accuracy rests on tagger errors"),
    MetricInfo("upos_tagger_name_propn", "tagger names PROPN", FAMILY, 0, 1, NEUTRAL, "beyond 003",
               "share of personal-name spans whose original the tagger itself reads as PROPN (or PART, the English "
               "possessive): its agreement with the span labels; UPOS accuracy judges name spans against PROPN"),
)


def context_upos(frame: pd.DataFrame, context) -> pd.Series:
    """UPOS of each row's replacement, tagged in its pseudonymised document (None: FAILED or not needed)."""
    tags = pd.Series(None, index=frame.index, dtype=object)
    # A suppressed span (empty replacement) has no token to tag: it stays None, i.e. wrong.
    need = frame.index[~frame["failed"].astype(bool) & frame["original_upos"].notna() & (frame["pseudonym"] != "")]
    if not len(need):
        return tags
    need_set = set(need)
    docs = set(zip(frame.loc[need, "run_id"], frame.loc[need, "doc_id"]))
    in_docs = frame[[k in docs for k in zip(frame["run_id"], frame["doc_id"])]]
    # Per (tagger, language): one batched call over whole pseudonymised documents (every
    # span of the run replaced, as the reader sees it). The tagger bounds its own batches'
    # memory (workbench/upos/spacy_backend.py), so all of TAB can go in one call.
    queries: dict[tuple[Tagger, str], list[tuple[int, tuple[str, int, int]]]] = {}
    taggers = {name: context.tagger_for(name) for name in in_docs["tagger"].unique()}
    for view in document_views(in_docs):
        tagger = taggers[frame.at[view.rows[0], "tagger"]]
        queries.setdefault((tagger, view.lang), []).extend(
            (row, (view.pseudo_text, a, b)) for row, (a, b) in zip(view.rows, view.placed) if row in need_set)
    for (tagger, lang), items in queries.items():
        for (row, _), tag in zip(items, tagger.tag_ranges(lang, [q for _, q in items])):
            tags.at[row] = tag
    return tags


def pick_upos(frame: pd.DataFrame, in_context: pd.Series) -> pd.Series:
    """The recorded pick UPOS where a run has one, else the tag in context."""
    recorded = frame["pick_upos"]
    return pd.Series(np.where(recorded.notna(), recorded, in_context), index=frame.index, dtype=object)


def _correct(frame: pd.DataFrame, tags: pd.Series) -> pd.Series:
    """Per row: 1 where the tag is the original's, 0 where not, NaN where the original has no UPOS."""
    known = frame["original_upos"].notna()
    wanted = pd.Series([name_rule(label, None if pd.isna(upos) else upos)
                        for label, upos in zip(frame["label"], frame["original_upos"])],
                       index=frame.index, dtype=object)
    correct = (tags == wanted) & ~frame["failed"].astype(bool)
    return pd.Series(np.where(known, correct, np.nan), index=frame.index)


def tagger_contradictions(frame: pd.DataFrame) -> pd.Series:
    """Per row: 1 where the original's UPOS contradicts its label, 0 where it fits, NaN where
    there is nothing to judge (workbench.upos.label_upos.contradicts)."""
    verdicts = [contradicts(label, None if pd.isna(upos) else upos)
                for label, upos in zip(frame["label"], frame["original_upos"])]
    return pd.Series([np.nan if v is None else float(v) for v in verdicts], index=frame.index, dtype=float)


def tagger_name_agreement(frame: pd.DataFrame) -> pd.Series:
    """Per row: 1 where a name span's original is tagged PROPN (or PART), 0 where tagged otherwise,
    NaN for other labels and untagged originals."""
    values = [np.nan if pd.isna(upos) or not is_name_label(label) else float(name_rule(label, upos) == upos)
              for label, upos in zip(frame["label"], frame["original_upos"])]
    return pd.Series(values, index=frame.index, dtype=float)


def span_values(frame: pd.DataFrame, context) -> pd.DataFrame:
    """Per row (index: the frame's): 1/0/NaN for each metric; tagged once per context and frame."""
    def compute() -> pd.DataFrame:
        in_context = context_upos(frame, context)
        return pd.DataFrame({"upos_accuracy": _correct(frame, in_context),
                             "upos_accuracy_pick": _correct(frame, pick_upos(frame, in_context)),
                             "upos_tagger_contradiction": tagger_contradictions(frame),
                             "upos_tagger_name_propn": tagger_name_agreement(frame)})
    return remembered(context, FAMILY, frame, compute)


def compute(frame: pd.DataFrame, context) -> pd.DataFrame:
    values = span_values(frame, context)
    return pd.DataFrame({name: per_run(frame, values[name]) for name in values.columns})
