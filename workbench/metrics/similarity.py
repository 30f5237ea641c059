"""Word and sentence cosine similarity, original vs pseudonymised (003 Table 3).

word       the original span's text vs the text that replaced it (003: all-MiniLM-L6-v2)
sentence   the sentence holding the span, original vs pseudonymised (every replacement of
           that sentence in place); one value per span, so a sentence with three spans
           weighs three times
Both are averaged over a run's spans. The embedder is chosen per document language
(MetricConfig.embedders). A FAILED span is compared as the "[FAILED]" token the document
carries. Identical texts score exactly 1 without asking the model. A suppressed span
(empty replacement) scores 0 for word similarity, on purpose: nothing of the original's
meaning is left, and an embedding of the empty string would only say what the model makes
of nothing; its sentence is compared as it reads with the span removed.

Rescaled against chance (workbench/metrics/similarity_baseline.py, BERTScore's baseline
rescaling): similarity_word and similarity_sentence are (cos − b) / (1 − b) per span, b the
language's mean cosine of unrelated UD PUD word pairs (word) or sentence pairs (sentence)
under the same embedder, so 0 = no closer than two unrelated texts, in English and Swedish
alike. Not clipped: a mean below 0 says a run's replacements are further from the originals
than chance. Identical texts stay 1 and a suppressed span stays 0 (= chance: nothing kept),
the conventions above. The cosines themselves are kept as *_raw, the baselines as *_baseline
(the mean over a run's spans of its language's b: one value for a one-language run).

Whether word similarity tells runs apart at all (`word_spreads`): an embedder may put every
replacement at the same distance from its original (e5 on Swedish PII spans does), and a reader
must be told so rather than read noise as a ranking. The rule, for any language and embedder:
over a corpus's generated runs (not the Original rows, not the reference anonymisations, whose
word similarity is 1, 0 or a label by construction), the spread of the runs' similarity_word
(max − min, rescaled: a share of the range from chance to identity) is at least
MIN_WORD_SPREAD; a report with two or more such runs below it says so in Table 3's caption.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from workbench.metrics.backends.embedders import cosine_rows
from workbench.metrics.base import HIGHER, NEUTRAL, MetricInfo, per_run, remembered
from workbench.metrics.metric_frame import document_views, run_rows
from workbench.metrics.similarity_baseline import rescale
from workbench.store.signature import REFERENCE

FAMILY = "similarity"
# What of MetricConfig.describe() it reads, the models it loads (workbench.metrics.model_use).
MODEL_SETTINGS = ("embedders", "similarity_baseline", "dtype")
_RESCALED = "; rescaled (cos − b) / (1 − b) against unrelated UD PUD {} pairs of the language (0 = chance)"
METRICS = (
    # Rescaled: 1 at identity, 0 at chance, below -1 only when a cosine falls far below the baseline.
    MetricInfo("similarity_word", "word", FAMILY, -math.inf, 1, HIGHER, "003 Table 3; BERTScore rescaling",
               "cosine of original span and replacement embeddings, mean over spans" + _RESCALED.format("word")),
    MetricInfo("similarity_sentence", "sent.", FAMILY, -math.inf, 1, HIGHER, "003 Table 3; BERTScore rescaling",
               "cosine of original and pseudonymised sentence embeddings, mean over spans"
               + _RESCALED.format("sentence")),
    MetricInfo("similarity_word_raw", "word raw", FAMILY, -1, 1, HIGHER, "003 Table 3",
               "cosine of original span and replacement embeddings, mean over spans, not rescaled"),
    MetricInfo("similarity_sentence_raw", "sent. raw", FAMILY, -1, 1, HIGHER, "003 Table 3",
               "cosine of original and pseudonymised sentence embeddings, mean over spans, not rescaled"),
    MetricInfo("similarity_word_baseline", "word b", FAMILY, -1, 1, NEUTRAL, "BERTScore rescaling",
               "mean cosine of unrelated UD PUD content-word pairs of the run's language (0 = not rescaled)"),
    MetricInfo("similarity_sentence_baseline", "sent. b", FAMILY, -1, 1, NEUTRAL, "BERTScore rescaling",
               "mean cosine of unrelated UD PUD sentence pairs of the run's language (0 = not rescaled)"),
)


def pair_cosines(context, lang: str, left: Sequence[str], right: Sequence[str], *,
                 baseline: float | None = None) -> np.ndarray:
    """Cosine of each (left[i], right[i]) with the language's embedder; 1 for identical texts,
    0 where exactly one side is empty or only white space (a suppressed span keeps nothing of
    its original's meaning; the embedding of an empty string is the model's, not the text's).
    With a baseline b, the model's cosines are rescaled to (cos − b) / (1 − b); 1 and 0 stay."""
    raw, modelled = raw_pair_cosines(context, lang, left, right)
    return raw if baseline is None else rescaled(raw, modelled, baseline)


def rescaled(raw: np.ndarray, modelled: np.ndarray, baseline: float) -> np.ndarray:
    """Rescale the cosines the model gave (`modelled`); identical (1) and suppressed (0) keep their value."""
    return np.where(modelled, rescale(raw, baseline), raw)


def raw_pair_cosines(context, lang: str, left: Sequence[str], right: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """(cosines as in pair_cosines without a baseline, mask of those the embedder computed)."""
    left, right = list(left), list(right)
    out = np.ones(len(left), dtype=np.float64)
    modelled = np.zeros(len(left), dtype=bool)
    blank = [not a.strip() or not b.strip() for a, b in zip(left, right)]
    differ = []
    for i, (a, b) in enumerate(zip(left, right)):
        if a == b:
            continue
        if blank[i]:
            out[i] = 0.0
        else:
            differ.append(i)
    if differ:
        embedder = context.embedder(lang)
        vectors = embedder.embed([left[i] for i in differ] + [right[i] for i in differ])
        out[differ] = cosine_rows(vectors[:len(differ)], vectors[len(differ):])
        modelled[differ] = True
    return out, modelled


def span_pairs(frame: pd.DataFrame) -> pd.DataFrame:
    """Per row: the word pair and the sentence pair to compare (index = frame index)."""
    records = []
    for view in document_views(frame):
        for n, row in enumerate(view.rows):
            original_sentence, pseudo_sentence = view.sentence_pair(view.sentence_of[n])
            records.append((row, view.lang, view.originals[n], view.replacements[n], original_sentence,
                            pseudo_sentence))
    pairs = pd.DataFrame.from_records(records, columns=["row", "lang", "word_a", "word_b", "sent_a", "sent_b"])
    return pairs.set_index("row").reindex(frame.index)


def span_values(frame: pd.DataFrame, context) -> pd.DataFrame:
    """Per row (index: the frame's): every metric of this family for that span; embedded once
    per context and frame."""
    return remembered(context, FAMILY, frame, lambda: _span_values(frame, context))


def _span_values(frame: pd.DataFrame, context) -> pd.DataFrame:
    pairs = span_pairs(frame)
    columns = {name: pd.Series(np.nan, index=frame.index) for name in
               ("word", "sentence", "word_raw", "sentence_raw", "word_baseline", "sentence_baseline")}
    for lang, g in pairs.groupby("lang", sort=False):
        # Words and sentences in one call per language: one model load, one cache pass.
        both, modelled = raw_pair_cosines(context, lang, list(g["word_a"]) + list(g["sent_a"]),
                                          list(g["word_b"]) + list(g["sent_b"]))
        baseline = context.similarity_baseline(lang)
        n = len(g)
        columns["word_raw"].loc[g.index] = both[:n]
        columns["sentence_raw"].loc[g.index] = both[n:]
        columns["word"].loc[g.index] = rescaled(both[:n], modelled[:n], baseline.word)
        columns["sentence"].loc[g.index] = rescaled(both[n:], modelled[n:], baseline.sentence)
        columns["word_baseline"].loc[g.index] = baseline.word
        columns["sentence_baseline"].loc[g.index] = baseline.sentence
    return pd.DataFrame({f"similarity_{name}": values for name, values in columns.items()})


def compute(frame: pd.DataFrame, context) -> pd.DataFrame:
    values = span_values(frame, context)
    return pd.DataFrame({name: per_run(frame, values[name]) for name in values.columns})


# Generated runs whose mean word similarities differ by less than this share of the range from
# chance (0) to identity (1) are not told apart by the measure. 003's English generators span
# about 0.2 of that range (Table 3's raw 0.15–0.34 against MiniLM's chance of about 0.22); a
# twentieth of it is the least difference we let a reader rank runs by.
MIN_WORD_SPREAD = 0.05


@dataclass(frozen=True, slots=True)
class WordSpread:
    """How far apart one corpus's generated runs are in word similarity."""
    corpus: str
    runs: tuple[str, ...]  # run ids (table index)
    spread: float  # max − min of similarity_word (rescaled)
    raw_low: float  # min and max of similarity_word_raw (003's figure)
    raw_high: float

    @property
    def discriminates(self) -> bool:
        return self.spread >= MIN_WORD_SPREAD


def _generated_rows(table: pd.DataFrame) -> pd.DataFrame:
    generated = [i for i in run_rows(table) if table.at[i, "source"] != REFERENCE]
    rows = table.loc[generated]
    return rows[rows["similarity_word"].notna()]


def word_spreads(table: pd.DataFrame) -> list[WordSpread]:
    """Per corpus of a metric table (compute_metrics; a language's part of a mixed corpus is a
    corpus of its own) with at least two generated runs: their spread in word similarity."""
    if not {"similarity_word", "similarity_word_raw", "source", "corpus"} <= set(table.columns):
        return []
    rows = _generated_rows(table)
    out = []
    for corpus, group in rows.groupby(rows["corpus"].astype(str), sort=False):
        if len(group) < 2:
            continue
        word, raw = group["similarity_word"].astype(float), group["similarity_word_raw"].astype(float)
        out.append(WordSpread(corpus, tuple(str(i) for i in group.index), float(word.max() - word.min()),
                              float(raw.min()), float(raw.max())))
    return out


def word_discrimination_note(table: pd.DataFrame) -> str:
    """A sentence for Table 3's caption naming each corpus where word similarity does not tell
    the generated runs apart (word_spreads); "" where it does everywhere."""
    flat = [s for s in word_spreads(table) if not s.discriminates]
    if not flat:
        return ""
    where = "; ".join(f"{s.corpus}: {len(s.runs)} runs, raw {s.raw_low:.3f}–{s.raw_high:.3f}, "
                      f"spread {s.spread:.3f} rescaled" for s in flat)
    return (f"Word similarity does not discriminate between the generated runs of {where} "
            f"(less than {MIN_WORD_SPREAD:g} of the range from chance to identity; docs/metrics.md): "
            "do not rank those runs by it.")


def discriminates_by_run(table: pd.DataFrame) -> dict[str, bool]:
    """Run id → whether word similarity tells it apart from its corpus's other generated runs
    (the CSV's flag column); runs in no spread (Original rows, references, a lone run) are absent."""
    return {run: spread.discriminates for spread in word_spreads(table) for run in spread.runs}
