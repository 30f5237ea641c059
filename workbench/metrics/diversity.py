"""Diversity of the pseudonym vocabulary (003 §5.1, Table 2 and Figure 1).

A *form* is the text placed in the document, white space collapsed, case kept (003
counts word/phrase forms). A FAILED span's form is "[FAILED]", the token 003 enters.

Table 2, per run (and for the originals via originals_frame):
    form_freq_avg/std/min/max   over distinct forms, how many spans carry each form;
                                std is the sample std (ddof=1, as pandas' describe,
                                which 003's integers match: avg = spans / unique forms)
    unique_forms                number of distinct forms (003's "unique spans": TAB
                                originals 15,494 spans / 8,074 forms ≈ the avg of 2)
Figure 1, per document: distinct forms / spans (1: every replacement differs).
"""

from __future__ import annotations

import re

import pandas as pd

from workbench.metrics.base import HIGHER, NEUTRAL, MetricInfo, per_run, remembered
from workbench.metrics.metric_frame import originals_frame, placed_text

FAMILY = "diversity"
# Computed for the original spans too: their `original:<corpus>` rows (003 Table 2 / Figure 1).
DESCRIBES_ORIGINALS = True
METRICS = (
    MetricInfo("form_freq_avg", "avg.", FAMILY, 1, None, NEUTRAL, "003 Table 2",
               "mean number of spans per distinct form"),
    MetricInfo("form_freq_std", "std", FAMILY, 0, None, NEUTRAL, "003 Table 2",
               "sample standard deviation of spans per distinct form"),
    MetricInfo("form_freq_min", "min", FAMILY, 1, None, NEUTRAL, "003 Table 2",
               "fewest spans carrying one form"),
    MetricInfo("form_freq_max", "max", FAMILY, 1, None, NEUTRAL, "003 Table 2",
               "most spans carrying one form (a generator's favourite)"),
    MetricInfo("unique_forms", "unique spans", FAMILY, 0, None, NEUTRAL, "003 Table 2",
               "number of distinct forms"),
    MetricInfo("unique_ratio", "uniq./doc", FAMILY, 0, 1, HIGHER, "003 Figure 1",
               "mean over documents of distinct forms / spans"),
    MetricInfo("multiword_rate", "multi-word", FAMILY, 0, 1, NEUTRAL, "003 §5.1",
               "share of spans whose replacement has more than one white-space separated word"),
)

_SPACE = re.compile(r"\s+")


def forms(frame: pd.DataFrame) -> pd.Series:
    texts = [placed_text(p, f) for p, f in zip(frame["pseudonym"].tolist(), frame["failed"].tolist())]
    return pd.Series([_SPACE.sub(" ", t).strip() for t in texts], index=frame.index)


def form_frequencies(frame: pd.DataFrame) -> pd.DataFrame:
    """Table 2 columns, one row per run."""
    counts = pd.DataFrame({"run_id": frame["run_id"], "form": forms(frame)}).value_counts().rename("n").reset_index()
    stats = counts.groupby("run_id", sort=False)["n"].agg(["mean", "std", "min", "max", "count"])
    stats.columns = ["form_freq_avg", "form_freq_std", "form_freq_min", "form_freq_max", "unique_forms"]
    return stats.reindex(list(dict.fromkeys(frame["run_id"])))


def document_unique_ratios(frame: pd.DataFrame) -> pd.DataFrame:
    """Figure 1 data: run_id, doc_id, spans, unique, ratio (one row per document of each run)."""
    data = pd.DataFrame({"run_id": frame["run_id"], "doc_id": frame["doc_id"], "form": forms(frame)})
    g = data.groupby(["run_id", "doc_id"], sort=False)["form"]
    out = pd.DataFrame({"spans": g.size(), "unique": g.nunique()}).reset_index()
    out["ratio"] = out["unique"] / out["spans"]
    return out


def figure1_ratios(frame: pd.DataFrame) -> pd.DataFrame:
    """003 Figure 1's data for a metric frame: document_unique_ratios of every run and of
    the originals (one `original:<corpus>` pseudo-run per corpus, listed first). The report
    and the dashboard's Metrics page both draw from this. Split by language as compute_metrics
    splits, so its run ids are the metric table's."""
    from workbench.metrics.languages import by_language
    frame = by_language(frame)
    return document_unique_ratios(pd.concat([originals_frame(frame), frame], ignore_index=True))


def multiword(frame: pd.DataFrame) -> pd.Series:
    """Per row: the replacement is more than one word (003 counts Qwen's MW-pseudonyms)."""
    return pd.Series([(not f) and len(p.split()) > 1 for p, f in zip(frame["pseudonym"], frame["failed"])],
                     index=frame.index)


def span_values(frame: pd.DataFrame, context=None) -> pd.DataFrame:
    """The one per-span measure of this family (the form statistics are over a run's
    vocabulary, not means over spans): multi-word, 1.0/0.0 per row."""
    return pd.DataFrame({"multiword_rate": multiword(frame).astype(float)})


def _ratios(frame: pd.DataFrame, context) -> pd.DataFrame:
    """document_unique_ratios, computed once per context and frame (compute and the intervals read it)."""
    return remembered(context, f"{FAMILY}:documents", frame, lambda: document_unique_ratios(frame))


def document_values(frame: pd.DataFrame, context=None) -> pd.DataFrame:
    """unique_ratio per document (the run's figure is their mean, 003 Figure 1)."""
    ratios = _ratios(frame, context)
    return ratios[["run_id", "doc_id"]].assign(unique_ratio=ratios["ratio"])


def compute(frame: pd.DataFrame, context=None) -> pd.DataFrame:
    result = form_frequencies(frame)
    ratios = _ratios(frame, context)
    result["unique_ratio"] = ratios.groupby("run_id", sort=False)["ratio"].mean()
    result["multiword_rate"] = per_run(frame, multiword(frame).astype(float))
    return result
