"""Text Preserved Information, TPI (TAE; Manzanares-Salor et al. 2025): the share of a document's
information content (IC) the pseudonymised document still holds.

    TPI(D', D) = Σ_{t_i kept} IC(t_i) / Σ_i IC(t_i)

over the text spans t_i of D, averaged over a run's documents. TAE calls TPI the ablation of
TPS (workbench/metrics/tps.py) that ignores what a replacement says: a span the run changed
keeps none of its information, however close its replacement. It is therefore TPS with the
similarity of each span set to 1 when the placed text equals the original and 0 otherwise,
and it reuses TPS's machinery (tps.document_information), so TPI ≤ TPS for every run.

What follows TAE (tae/tae.py, get_TPI, commit 8ea9060) and what does not:
  * the formula, per document then the mean over documents: as TAE;
  * masked: TAE counts a term as masked when a masked span touches it; here a PII span is
    masked when the text placed for it differs from its original (case-sensitive), the rule of
    workbench/metrics/masking.py (changed_spans). A suppressed span (replacement "") is
    masked: its information is lost. A span replaced by itself is kept, so the `original`
    reference run reads 1. A FAILED span carries "[FAILED]": masked.
  * terms: TAE takes spaCy's entities, noun chunks and every other token (stop words and
    punctuation included); here TPS's terms: each PII span as one unit and every content word
    outside the spans (stop words left out, workbench/text/stopwords.py), so TPI and TPS
    weigh the same terms;
  * IC: TAE asks bert-base-uncased for the probability of each term masked in context (six
    rounds of term alternation); here TPS's offline estimate, add-one-smoothed word
    frequencies over the run's corpus in the document's language (004 §4.1.1 lists corpus
    frequency as an IC estimate), a multi-word span taking its least probable word. No masked
    LM is needed, so nothing is trained or downloaded, and the number is exact arithmetic.
An over-masked document keeps only the information of the words nobody touched: every span
changed leaves the words outside the spans; an imported system's own detections outside the
corpus spans (changed_spans lists them with the spans) take the IC of every content word they
touch too, so a system that masks all of a document reads 0.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.metrics.base import HIGHER, MetricInfo, remembered
from workbench.metrics.masking import changed_spans
from workbench.metrics.metric_frame import document_views, runs_of
from workbench.metrics.tps import document_information

FAMILY = "tpi"
METRICS = (
    MetricInfo("tpi", "TPI", FAMILY, 0, 1, HIGHER, "TAE (Manzanares-Salor et al. 2025); IC as 004 §4.1.1",
               "share of the original document's information content (PII spans and content words) left "
               "unchanged, mean over documents; a changed span keeps nothing (TPS without similarity)"),
)


def document_tpi(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per (run, document): tpi."""
    views = list(document_views(frame))
    records = []
    for view, info in zip(views, document_information(frame, views)):
        changed = set(changed_spans(view))  # the corpus spans the run changed (and its own detections)
        kept = np.array([0.0 if span in changed else 1.0 for span in view.spans])
        records.append((view.run_id, view.doc_id, info.share_kept(kept, view.edited_outside())))
    return pd.DataFrame.from_records(records, columns=["run_id", "doc_id", "tpi"])


def document_values(frame: pd.DataFrame, context=None) -> pd.DataFrame:
    """document_tpi, computed once per context and frame (the intervals read it again)."""
    return remembered(context, f"{FAMILY}:documents", frame, lambda: document_tpi(frame))


def compute(frame: pd.DataFrame, context=None) -> pd.DataFrame:
    per_doc = document_values(frame, context)
    return per_doc.groupby("run_id", sort=False)[["tpi"]].mean().reindex(runs_of(frame)).astype(np.float64)
