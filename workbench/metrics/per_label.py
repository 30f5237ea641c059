"""Every span-level metric per entity label (PERSON, LOC, DATETIME …): issue 15, item 3.

A metric is per label where it is a mean over spans (or over entities, whose label is the
label of their first mention), so restricting the mean to one label's spans keeps its
meaning. Per (run, label):

    upos_accuracy, upos_accuracy_pick         spans whose original has a UPOS
    overlap_partial, overlap_absolute         all spans
    similarity_word, similarity_sentence      all spans (a sentence value belongs to each of
    (and their *_raw cosines)                 its spans, as in the run's mean)
    failed_rate, seconds_per_span             all spans (seconds: generated runs only)
    multiword_rate                            all spans
    ner_type_accuracy, ner_original_tagged    all spans (ner: 000's NER-type consistency; its
                                              P / R / F1 are macro over types, not per label)
    recall_mention (and its DIRECT / QUASI)   all spans of imported runs (detection; the
                                              token and entity recalls are pooled, not per label)
    morph_*, *_agreement, name_gender_*       the spans each judges (agreement: a feature the
                                              original has, personal names for gender)
    borrowed_*                                all spans (borrowed identities)
    consistency, merged_entity_rate           entities of the label (entity_coherence)

Not per label: the form statistics of Table 2 and the per-document unique ratio (a run's
vocabulary, not a mean over spans), ROUGE, the classifier and TPS (a document's value,
which every span and the text between them shape together), and the similarity baselines
(one constant per language).

The per-span values are the ones compute_metrics computed: each span-level family keeps
them on the MetricContext for the frame it was given (workbench.metrics.base.remembered), so
after compute_metrics(frame, context) the same frame and context give the per-label values
without tagging or embedding anything again; alone, label_metrics computes them once.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import pandas as pd

from workbench.metrics import FAMILIES, MetricContext, family, metric_infos
from workbench.metrics.metric_frame import runs_of

# Columns of span_values that are not metrics (the similarity baselines are constants per
# language, not measurements of the spans).
NOT_PER_LABEL = ("similarity_word_baseline", "similarity_sentence_baseline")
ID_COLUMNS = ["run_id", "label", "spans", "entities"]


@cache
def span_families() -> tuple[str, ...]:
    """The families with a mean over spans: those whose module has span_values (read from the
    families themselves, so a new one needs no list edited beside its registry entry)."""
    return tuple(f for f in FAMILIES if hasattr(family(f), "span_values"))


@cache
def entity_family() -> str:
    """The family whose entity_values give the per-label entity counts (entity coherence)."""
    [name] = [f for f in FAMILIES if hasattr(family(f), "entity_values")]
    return name


def label_metric_names(families: Sequence[str] = FAMILIES) -> list[str]:
    """The metrics label_metrics gives for these families, in metric_infos order."""
    chosen = [f for f in families if f in span_families() or f == entity_family()]
    skip = set(NOT_PER_LABEL) | {"form_freq_avg", "form_freq_std", "form_freq_min", "form_freq_max",
                                 "unique_forms", "unique_ratio"}
    for name in chosen:  # a family naming its SPAN_METRICS has others that are no mean over spans
        spans_only = getattr(family(name), "SPAN_METRICS", None)
        if spans_only is not None:
            skip |= {m.name for m in family(name).METRICS if m.name not in spans_only}
    return [m for m in metric_infos(chosen) if m not in skip]


def label_order(frame: pd.DataFrame) -> list[str]:
    """Labels by number of spans (most first), ties by name: the order of table columns."""
    spans = frame.drop_duplicates(["corpus_hash", "doc_id", "span_index"])
    counts = spans["label"].astype(str).value_counts()
    return sorted(counts.index, key=lambda label: (-counts[label], label))


def label_metrics(frame: pd.DataFrame, context: MetricContext | None = None, *,
                  families: Sequence[str] = FAMILIES) -> pd.DataFrame:
    """One row per (run, label) that has spans in the run, runs in frame order, labels by
    label_order: run_id, label, spans, entities, then label_metric_names(families).

    A label the run has no span of has no row (a table shows "–" there); a metric with no
    defined value for the label's spans (no original UPOS, no repeated entity) is NaN.
    """
    context = context or MetricContext()
    frame = context.split_by_language(frame)  # rows as compute_metrics has them: per (run, language)
    names = label_metric_names(families)
    if frame.empty:
        return pd.DataFrame(columns=ID_COLUMNS + names)
    keys = pd.DataFrame({"run_id": frame["run_id"], "label": frame["label"].astype(str)}, index=frame.index)
    values = [family(f).span_values(frame, context) for f in families if f in span_families()]
    spans = pd.concat([keys, *values], axis=1)
    span_metrics = [m for m in names if m in spans.columns]
    grouped = spans.groupby(["run_id", "label"], sort=False)
    table = grouped[span_metrics].mean()
    table.insert(0, "spans", grouped.size())
    entities = family(entity_family()).entity_values(frame)
    entities["label"] = entities["label"].astype(str)
    by_entity = entities.groupby(["run_id", "label"], sort=False)
    table.insert(1, "entities", by_entity.size().reindex(table.index).fillna(0).astype(int))
    if entity_family() in families:
        table = table.join(by_entity[["consistency", "merged_entity_rate"]].mean())
    run_rank = {r: n for n, r in enumerate(runs_of(frame))}
    label_rank = {label: n for n, label in enumerate(label_order(frame))}
    table = table.reset_index()
    table = table.sort_values(["run_id", "label"], key=lambda s: s.map(run_rank if s.name == "run_id" else label_rank),
                              kind="stable", ignore_index=True)
    return table.reindex(columns=ID_COLUMNS + names)
