"""ROUGE between summaries of the original and the pseudonymised document (003 Table 4).

Per document: summarise both versions with the same summariser, score the pseudonymised
summary against the original's with rouge-score (F-measure), average over a run's
documents. rouge-score's default tokenizer keeps only [a-z0-9] and so deletes å, ä, ö
(and é, ł …); UnicodeTokenizer keeps every letter. No stemming: Porter is English-only,
and one rule for both languages keeps English and Swedish scores comparable.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from workbench.infra.errors import MissingExtra
from workbench.metrics.base import HIGHER, MetricInfo, remembered
from workbench.metrics.metric_frame import document_views, runs_of

FAMILY = "rouge"
# What of MetricConfig.describe() it reads, the models it loads (workbench.metrics.model_use).
MODEL_SETTINGS = ("summariser", "dtype")
ROUGE_TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")
METRICS = tuple(
    MetricInfo(f"rouge_{t[5:]}", t[5:], FAMILY, 0, 1, HIGHER, "003 Table 4",
               f"ROUGE-{t[5:]} F between summaries of original and pseudonymised document, mean over documents")
    for t in ROUGE_TYPES)

_TOKEN = re.compile(r"\w+", re.UNICODE)


class UnicodeTokenizer:
    """rouge-score tokenizer interface: lower-cased runs of letters and digits, any script."""

    def tokenize(self, text: str) -> list[str]:
        return _TOKEN.findall(text.lower())


def make_scorer():
    try:
        from rouge_score import rouge_scorer
    except ModuleNotFoundError:
        raise MissingExtra("ROUGE", "metrics", "rouge-score") from None
    return rouge_scorer.RougeScorer(list(ROUGE_TYPES), tokenizer=UnicodeTokenizer())


def rouge_pair(scorer, original_summary: str, pseudo_summary: str) -> dict[str, float]:
    if original_summary == pseudo_summary:
        return {t: 1.0 for t in ROUGE_TYPES}  # identical summaries; also covers two empty ones
    scores = scorer.score(original_summary, pseudo_summary)
    return {t: scores[t].fmeasure for t in ROUGE_TYPES}


def document_scores(frame: pd.DataFrame, context) -> pd.DataFrame:
    """run_id, doc_id and the four ROUGE F-measures per document."""
    views = list(document_views(frame))
    summaries: dict[tuple[str, str], str] = {}
    for lang in dict.fromkeys(v.lang for v in views):
        texts = list(dict.fromkeys(t for v in views if v.lang == lang for t in (v.text, v.pseudo_text)))
        summaries.update(zip(((lang, t) for t in texts), context.summariser().summarise(texts, lang)))
    scorer = make_scorer()
    records = []
    for v in views:
        scores = rouge_pair(scorer, summaries[(v.lang, v.text)], summaries[(v.lang, v.pseudo_text)])
        records.append({"run_id": v.run_id, "doc_id": v.doc_id, **scores})
    return pd.DataFrame.from_records(records, columns=["run_id", "doc_id", *ROUGE_TYPES])


def document_values(frame: pd.DataFrame, context) -> pd.DataFrame:
    """run_id, doc_id and each metric per document (the run's figure is their mean), computed
    once per context and frame (workbench.metrics.base.remembered): the intervals read them."""
    def compute() -> pd.DataFrame:
        per_doc = document_scores(frame, context)
        return per_doc.rename(columns=dict(zip(ROUGE_TYPES, (m.name for m in METRICS))))
    return remembered(context, f"{FAMILY}:documents", frame, compute)


def compute(frame: pd.DataFrame, context) -> pd.DataFrame:
    per_doc = document_values(frame, context)
    names = [m.name for m in METRICS]
    return per_doc.groupby("run_id", sort=False)[names].mean().reindex(runs_of(frame)).astype(np.float64)
