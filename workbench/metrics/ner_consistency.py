"""NER-type consistency (paper 000 §4 "Automated evaluations", its Table 5): an NER model tags the
original span in the original document and the replacement in the pseudonymised document, and the
measure is how often the two entity types agree.

A span's type is the type of the entity the tagger found over its text region, in the whole document
(the original's offsets in the original text; the replacement's `placed` offsets in the pseudonymised
text, workbench.metrics.metric_frame.DocView): of several entities overlapping the region, the one
overlapping it by the most characters; "none" where the tagger tags nothing there
(workbench.metrics.backends.ner_models.region_type).

    ner_type_accuracy     spans whose replacement's type equals the original's / all spans. Two
                          "none" agree: 000's Table 5 reports accuracy beside precision and recall,
                          so it counts every span, and a span the tagger sees no entity in, replaced by
                          text it sees none in either, kept its type.
    ner_type_precision,   the original's type taken as gold and the replacement's as prediction,
    ner_type_recall,      per entity type ("none" is no class: a span typed none on one side is a miss
    ner_type_f1           or a false alarm of the other side's type), macro-averaged over the types
                          either side has in the run (000's Table 5 P / R / F1; it does not say how it
                          averages, so this is stated here)
    ner_original_tagged   spans whose original the tagger gives a type / all spans: how much of the
                          accuracy rests on "none" agreeing with "none" (descriptive)

Edge cases, as docs/metrics.md says:
- A suppressed span (empty replacement) leaves no text to tag: its type is "none", so it agrees only
  where the tagger saw no entity in the original either.
- A FAILED span (the [FAILED] token in the text, as 003 §4 enters it) never agrees: no replacement was made.
- A label token ("[PERSON]", the `label` reference run) is tagged as the text it is: whatever type the
  tagger gives those characters in their context (usually none).
- An over-masked document (a system that replaced text outside the gold spans) is tagged as the system
  wrote it: its other replacements change the context each gold span's replacement is tagged in, and
  only the gold spans are scored.
- The `original` reference run replaces every span by itself and reads 1 on accuracy and F1.

Models (workbench.metrics.backends.ner_models): 000's spaCy `xx_ent_wiki_sm` by default for every language; where
it is not installed, a stand-in per language, named in the report's caption: en_core_web_sm 3.8 for
English, a tagger trained on the Swedish PGV-PII corpus's own labels for Swedish. Entities are cached on
disk by (model id, language, text), so a second report over the same runs tags nothing.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.metrics.backends.ner_models import NONE, region_type
from workbench.metrics.base import HIGHER, NEUTRAL, MetricInfo, per_run, remembered
from workbench.metrics.metric_frame import document_views, runs_of

FAMILY = "ner"
# What of MetricConfig.describe() it reads, the models it loads (workbench.metrics.model_use).
MODEL_SETTINGS = ("ner",)
FAILED_TYPE = "[FAILED]"  # the replacement type of a FAILED span: never an entity type, so never agrees
SOURCE = "000 §4 Automated evaluations (Table 5"
METRICS = (
    MetricInfo("ner_type_accuracy", "NER acc.", FAMILY, 0, 1, HIGHER, f"{SOURCE} Acc.)",
               "share of spans whose replacement, tagged in the pseudonymised document, has the entity type of the "
               "original tagged in the original (none = none agrees)"),
    MetricInfo("ner_type_precision", "NER P", FAMILY, 0, 1, HIGHER, f"{SOURCE} P)",
               "precision of the replacements' types against the originals', macro over entity types"),
    MetricInfo("ner_type_recall", "NER R", FAMILY, 0, 1, HIGHER, f"{SOURCE} R)",
               "recall of the replacements' types against the originals', macro over entity types"),
    MetricInfo("ner_type_f1", "NER F1", FAMILY, 0, 1, HIGHER, f"{SOURCE} F1)",
               "F1 of the replacements' types against the originals', macro over entity types"),
    MetricInfo("ner_original_tagged", "NER orig. tagged", FAMILY, 0, 1, NEUTRAL, "beyond 000",
               "share of spans whose original the NER tagger gives an entity type"),
)
# Means over spans, so per label (workbench.metrics.per_label); P / R / F1 are per type over a run.
SPAN_METRICS = ("ner_type_accuracy", "ner_original_tagged")


def span_types(frame: pd.DataFrame, context) -> pd.DataFrame:
    """Per row (index: the frame's): original_type and replacement_type; tagged once per context and frame."""
    return remembered(context, FAMILY, frame, lambda: _tag_types(frame, context))


def _tag_types(frame: pd.DataFrame, context) -> pd.DataFrame:
    views = list(document_views(frame))
    entities: dict[tuple[str, str], list] = {}  # (lang, text) -> entities; one tagger call per language
    for lang in dict.fromkeys(v.lang for v in views):
        texts = list(dict.fromkeys(t for v in views if v.lang == lang for t in (v.text, v.pseudo_text)))
        entities.update(zip(((lang, t) for t in texts), context.ner_tagger(lang).entities(texts)))
    failed = frame["failed"].astype(bool)
    types = pd.DataFrame({"original_type": NONE, "replacement_type": NONE}, index=frame.index, dtype=object)
    for view in views:
        original, pseudo = entities[(view.lang, view.text)], entities[(view.lang, view.pseudo_text)]
        for row, (a, b), (c, d) in zip(view.rows, view.spans, view.placed):
            types.at[row, "original_type"] = region_type(original, a, b)
            # An empty replacement has an empty region: "none" (region_type), as the docstring says.
            types.at[row, "replacement_type"] = FAILED_TYPE if failed.at[row] else region_type(pseudo, c, d)
    return types


def span_values(frame: pd.DataFrame, context) -> pd.DataFrame:
    """Per row: 1/0 agreement and 1/0 original tagged."""
    types = span_types(frame, context)
    return pd.DataFrame({
        "ner_type_accuracy": (types["original_type"] == types["replacement_type"]).astype(float),
        "ner_original_tagged": (types["original_type"] != NONE).astype(float),
    }, index=frame.index)


def macro_scores(original: pd.Series, replacement: pd.Series) -> tuple[float, float, float]:
    """(precision, recall, F1) macro-averaged over the entity types either side has ("none" and the
    FAILED type are no class); NaN where neither side has any. A type's precision with no prediction
    (or recall with no gold span) is 0, as is its F1 then."""
    classes = sorted((set(original) | set(replacement)) - {NONE, FAILED_TYPE})
    if not classes:
        return np.nan, np.nan, np.nan
    p, r, f = [], [], []
    for c in classes:
        hit = int(((original == c) & (replacement == c)).sum())
        predicted, gold = int((replacement == c).sum()), int((original == c).sum())
        precision = hit / predicted if predicted else 0.0
        recall = hit / gold if gold else 0.0
        p.append(precision)
        r.append(recall)
        f.append(2 * precision * recall / (precision + recall) if precision + recall else 0.0)
    return float(np.mean(p)), float(np.mean(r)), float(np.mean(f))


def compute(frame: pd.DataFrame, context) -> pd.DataFrame:
    values = span_values(frame, context)
    types = span_types(frame, context)
    scores = {run: macro_scores(t["original_type"], t["replacement_type"])
              for run, t in types.groupby(frame["run_id"], sort=False)}
    runs = runs_of(frame)
    table = pd.DataFrame({name: per_run(frame, values[name]) for name in SPAN_METRICS})
    for k, name in enumerate(("ner_type_precision", "ner_type_recall", "ner_type_f1")):
        table[name] = [scores[run][k] for run in runs]
    return table[[m.name for m in METRICS]].astype(np.float64)
