"""Text Preserved Similarity, TPS (paper 004 §4.1, Eq. 3–7).

    TPS(D', D) = Σ_i RIC(t_i, D) · sim(t_i, t'_i),   RIC = IC(t_i) / Σ_j IC(t_j),
    IC(t) = −log p(t),   sim = max(0, cos(embed(t), embed(t')))

over the text spans t_i of D: here every replaced PII span (as one unit) and every word
outside them that is not a stopword. An unedited word keeps similarity 1, so TPS is the
information-weighted share of meaning a pseudonymisation keeps: 1 = nothing lost. A word an
imported system changed with its own detector, outside the spans (DocView.outside), keeps 0.

Offline stand-ins, both named in docs/metrics.md:
  * p(t): 004 asks BERT for the probability of the masked span in context; here p comes
    from word frequencies in the run's own corpus (its documents in the span's language) with
    add-one smoothing, one of the estimates 004 §4.1.1 lists (frequency of appearance in a corpus). A multi-word span
    takes its least probable word, as 004 does for multi-token spans.
  * embed: 004 used paraphrase-albert-base-v2; here the language's similarity embedder
    (all-MiniLM-L6-v2 / multilingual-e5-small), which keeps TPS and word similarity on
    one scale.
TPS is computed per document and averaged over a run's documents.

Rescaled against chance (workbench/metrics/similarity_baseline.py): cos is first rescaled to
(cos − b) / (1 − b) with b the language's word baseline (unrelated UD PUD content-word pairs:
a TPS term compares a span or a word, not a sentence), then 004's max(0, ·) applies, so a
replacement no closer to its original than two unrelated words keeps nothing. With e5's
cosines (≈ 0.8 for unrelated Swedish words) the unrescaled TPS credits a random word with
80 % of a span's information and reads ≈ 0.975 for every Swedish run. The unrescaled value,
max(0, cos), is kept as tps_raw.
"""

from __future__ import annotations

import bisect
import math
import re
from collections import Counter
from dataclasses import dataclass

import numpy as np
import pandas as pd

from workbench.metrics.base import HIGHER, MetricInfo, remembered
from workbench.metrics.metric_frame import document_views, runs_of
from workbench.metrics.similarity import raw_pair_cosines, rescaled
from workbench.text.stopwords import is_content_word

FAMILY = "tps"
# What of MetricConfig.describe() it reads, the models it loads (workbench.metrics.model_use).
MODEL_SETTINGS = ("embedders", "similarity_baseline", "dtype")
METRICS = (
    MetricInfo("tps", "TPS", FAMILY, 0, 1, HIGHER, "004 §4.1; BERTScore rescaling",
               "information-weighted mean similarity of text spans, original vs pseudonymised, mean over documents; "
               "similarity = max(0, cosine rescaled against unrelated UD PUD word pairs)"),
    MetricInfo("tps_raw", "TPS raw", FAMILY, 0, 1, HIGHER, "004 §4.1",
               "as tps with 004's max(0, cosine), not rescaled"),
)

_WORD = re.compile(r"\w+", re.UNICODE)


class InformationContent:
    """IC of words from add-one-smoothed frequencies over one corpus's documents."""

    def __init__(self, texts) -> None:
        self.counts = Counter(w for t in texts for w in _WORD.findall(t.lower()))
        self.total = sum(self.counts.values()) + len(self.counts) + 1  # +1: room for unseen words

    def word(self, w: str) -> float:
        return -math.log((self.counts.get(w, 0) + 1) / self.total)

    def span(self, text: str, lang: str) -> float:
        words = _WORD.findall(text.lower())
        content = [w for w in words if is_content_word(w, lang)] or words
        return max((self.word(w) for w in content), default=self.word(""))


def _unedited_words(text: str, lang: str, spans, ic: InformationContent) -> tuple[tuple[int, int, float], ...]:
    """(start, end, IC) of each content word outside every span, in text order."""
    starts = [a for a, _ in spans]
    words = []
    for m in _WORD.finditer(text):
        k = bisect.bisect_right(starts, m.start()) - 1
        if k >= 0 and m.start() < spans[k][1]:
            continue  # inside a PII span: that span is one text span of its own
        w = m.group().lower()
        if is_content_word(w, lang):
            words.append((m.start(), m.end(), ic.word(w)))
    return tuple(words)


@dataclass(frozen=True, slots=True)
class DocumentInformation:
    """The information content of one document's text spans (004 §4.1.1), shared with TPI
    (workbench/metrics/tpi.py): a run decides only how much of each span's IC it keeps."""
    words: tuple[tuple[int, int, float], ...]  # (start, end, IC) of the content words outside every PII span
    spans: np.ndarray  # IC of each PII span, in the view's span order

    @property
    def unedited(self) -> float:
        """Summed IC of the words outside the spans: what a run that edits only its spans keeps."""
        return float(sum(ic for _, _, ic in self.words))

    def share_kept(self, kept: np.ndarray, edited_outside=()) -> float:
        """(IC of the words outside the spans left as they were + Σ IC(span_i) · kept_i) / total IC;
        kept_i in [0, 1] per span; edited_outside: (start, end) ranges outside the spans that the
        run changed too (an imported system's own detections), whose words keep nothing. 1 for a
        document with no information at all (nothing to lose)."""
        unedited = self.unedited
        total = unedited + float(self.spans.sum())
        lost = sum(ic for a, b, ic in self.words
                   if any(a < end and start < b for start, end in edited_outside)) if edited_outside else 0.0
        return (unedited - lost + float((self.spans * kept).sum())) / total if total > 0 else 1.0


def document_information(frame: pd.DataFrame, views) -> list[DocumentInformation]:
    """One DocumentInformation per view (DocViews of `frame`), in order. IC from word frequencies
    per corpus and language: a Swedish word's probability is not diluted by the English half of
    a mixed corpus (workbench.metrics.languages reports each part alone)."""
    ics: dict[tuple[str, str], InformationContent] = {}
    for key, g in frame.drop_duplicates(["corpus_hash", "doc_id"]).groupby(["corpus_hash", "lang"], sort=False):
        ics[key] = InformationContent(g["text"])
    unedited: dict[tuple[str, str], tuple] = {}  # a document's words outside its spans: the same for every run
    out = []
    for v in views:
        ic = ics[(v.corpus_hash, v.lang)]
        key = (v.corpus_hash, v.doc_id)
        if key not in unedited:
            unedited[key] = _unedited_words(v.text, v.lang, v.spans, ic)
        out.append(DocumentInformation(unedited[key], np.array([ic.span(o, v.lang) for o in v.originals])))
    return out


def document_tps(frame: pd.DataFrame, context) -> pd.DataFrame:
    views = list(document_views(frame))
    sims: dict[str, dict[tuple[str, str], np.ndarray]] = {"tps": {}, "tps_raw": {}}
    for lang in dict.fromkeys(v.lang for v in views):
        mine = [v for v in views if v.lang == lang]
        raw, modelled = raw_pair_cosines(context, lang, [o for v in mine for o in v.originals],
                                         [r for v in mine for r in v.replacements])
        cos = {"tps": rescaled(raw, modelled, context.similarity_baseline(lang).word), "tps_raw": raw}
        offset = 0
        for v in mine:
            for name, values in cos.items():  # 004's max(0, ·), after rescaling
                sims[name][(v.run_id, v.doc_id)] = np.maximum(values[offset:offset + len(v.rows)], 0.0)
            offset += len(v.rows)
    records = [(v.run_id, v.doc_id, *(info.share_kept(sims[name][(v.run_id, v.doc_id)], v.edited_outside())
                                      for name in ("tps", "tps_raw")))
               for v, info in zip(views, document_information(frame, views))]
    return pd.DataFrame.from_records(records, columns=["run_id", "doc_id", "tps", "tps_raw"])


def document_values(frame: pd.DataFrame, context) -> pd.DataFrame:
    """document_tps, computed once per context and frame (the intervals read it again)."""
    return remembered(context, f"{FAMILY}:documents", frame, lambda: document_tps(frame, context))


def compute(frame: pd.DataFrame, context) -> pd.DataFrame:
    per_doc = document_values(frame, context)
    return (per_doc.groupby("run_id", sort=False)[["tps", "tps_raw"]].mean().reindex(runs_of(frame))
            .astype(np.float64))
