"""Can a classifier tell pseudonymised text from the original? (003 §5.1, after Yermilov et al. 2023)

Samples: every sentence holding at least one replaced span, once as in the original
(label 0) and once as pseudonymised (label 1). Cross-validated with folds grouped by
document, so the two versions of a sentence (and the rest of its document) never sit on
both sides of a split. The score is the accuracy over all held-out predictions: 0.5 is
chance (the pseudonyms give nothing away), 1.0 means every pseudonymised sentence is
spotted (003's BERT reached 100% on TAB). A run with fewer than two documents gets no
score. Results are cached on the data's hash, classifier and folds.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.metrics.backends.cache import content_hash
from workbench.metrics.base import CHANCE, MetricInfo
from workbench.metrics.metric_frame import document_views, runs_of

FAMILY = "detectability"
# What of MetricConfig.describe() it reads, the models it loads (workbench.metrics.model_use).
MODEL_SETTINGS = ("classifier", "folds", "seed", "dtype")
METRICS = (
    MetricInfo("classifier_accuracy", "clf. acc.", FAMILY, 0, 1, CHANCE, "003 §5.1 (Yermilov et al. 2023)",
               "cross-validated accuracy of telling pseudonymised from original sentences (0.5 = chance)"),
)


def samples(frame: pd.DataFrame) -> dict[str, tuple[list[str], list[int], list[str]]]:
    """Per run: texts, labels, groups (document ids)."""
    out: dict[str, tuple[list[str], list[int], list[str]]] = {}
    for view in document_views(frame):
        texts, labels, groups = out.setdefault(view.run_id, ([], [], []))
        for k in sorted(set(view.sentence_of)):
            original, pseudo = view.sentence_pair(k)
            texts += [original, pseudo]
            labels += [0, 1]
            groups += [view.doc_id, view.doc_id]
    return out


def cross_validated_accuracy(texts, labels, groups, factory, folds: int) -> float:
    from sklearn.model_selection import GroupKFold
    n_groups = len(set(groups))
    if n_groups < 2:
        return float("nan")
    texts, labels = np.asarray(texts, dtype=object), np.asarray(labels)
    correct = 0
    for train, test in GroupKFold(n_splits=min(folds, n_groups)).split(texts, labels, groups):
        model = factory()
        model.fit(list(texts[train]), labels[train])
        correct += int((model.predict(list(texts[test])) == labels[test]).sum())
    return correct / len(labels)


def compute(frame: pd.DataFrame, context) -> pd.DataFrame:
    classifier_id, factory = context.classifier_factory()
    folds = context.config.folds
    cache = context.cache("results")
    values = {}
    for run_id, (texts, labels, groups) in samples(frame).items():
        key = "clf:" + content_hash([classifier_id, str(folds), *texts, *groups])
        hit = cache.get_many([key])
        if key in hit:
            values[run_id] = hit[key]
            continue
        values[run_id] = cross_validated_accuracy(texts, labels, groups, factory, folds)
        cache.put_many({key: values[run_id]})
    return pd.DataFrame({"classifier_accuracy": pd.Series(values, dtype=float)}).reindex(runs_of(frame))
