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
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from workbench.metrics.base import HIGHER, MetricInfo, per_run
from workbench.metrics.embedders import cosine_rows
from workbench.metrics.metric_frame import document_views

FAMILY = "similarity"
METRICS = (
    MetricInfo("similarity_word", "word", FAMILY, -1, 1, HIGHER, "003 Table 3",
               "cosine of original span and replacement embeddings, mean over spans"),
    MetricInfo("similarity_sentence", "sent.", FAMILY, -1, 1, HIGHER, "003 Table 3",
               "cosine of original and pseudonymised sentence embeddings, mean over spans"),
)


def pair_cosines(context, lang: str, left: Sequence[str], right: Sequence[str]) -> np.ndarray:
    """Cosine of each (left[i], right[i]) with the language's embedder; 1 for identical texts,
    0 where exactly one side is empty or only white space (a suppressed span keeps nothing of
    its original's meaning; the embedding of an empty string is the model's, not the text's)."""
    left, right = list(left), list(right)
    out = np.ones(len(left), dtype=np.float64)
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
    return out


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


def compute(frame: pd.DataFrame, context) -> pd.DataFrame:
    pairs = span_pairs(frame)
    word = pd.Series(np.nan, index=frame.index)
    sentence = pd.Series(np.nan, index=frame.index)
    for lang, g in pairs.groupby("lang", sort=False):
        # Words and sentences in one call per language: one model load, one cache pass.
        both = pair_cosines(context, lang, list(g["word_a"]) + list(g["sent_a"]), list(g["word_b"]) + list(g["sent_b"]))
        word.loc[g.index] = both[:len(g)]
        sentence.loc[g.index] = both[len(g):]
    return pd.DataFrame({"similarity_word": per_run(frame, word), "similarity_sentence": per_run(frame, sentence)})
