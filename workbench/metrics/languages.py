"""A corpus that mixes languages is reported per language, never averaged across them.

Several metrics take their model from the document's language: the similarity embedders
(all-MiniLM-L6-v2 for English, multilingual-e5-small for Swedish) and their chance baselines,
TPS's similarity term, the UPOS taggers, the summariser and classifier features. Their values
live on different scales (an unrelated Swedish word pair has a cosine near 0.8 under e5, an
English one near 0.2 under MiniLM), so a mean over a run's English and Swedish spans describes
neither language. `by_language` therefore splits every run over a corpus with documents in
more than one language (PGV-PII whole) into one pseudo-run per language, before any metric is
computed: run id `<run_id>@<lang>`, corpus `<corpus> [<lang>]`, both labels for users; the
stored run and corpus name stay in the columns stored_run and stored_corpus, and nothing
takes the labels apart (workbench.metrics.metric_frame). Tables then have one row per
(run, language) and figures one panel per language, each with its own Original row. Every
metric is split, not only the model-based ones, so a row's numbers all describe the same spans.
A run over a one-language corpus keeps its id and corpus name.

Privacy measures are stored per run (workbench privacy …), not per language: the split rows
show none (NaN); attack a one-language corpus (`-c pgv-pii-sv`) to compare them.
"""

from __future__ import annotations

import pandas as pd

from workbench.metrics.metric_frame import with_row_identity

# The run id of a language's part of a run: "<run_id>@sv". A label only: the stored run and
# the stored corpus name stay in the row's stored_run and stored_corpus columns.
LANGUAGE_SEPARATOR = "@"


def mixed_corpora(frame: pd.DataFrame) -> set[str]:
    """The corpus hashes whose rows in the frame hold more than one language."""
    counts = frame.groupby("corpus_hash")["lang"].nunique()
    return set(counts.index[counts > 1])


def by_language(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with each run over a mixed-language corpus split into one run per language;
    the frame itself where there is none (so calling it twice changes nothing). Original rows
    (metric_frame.originals_frame) split the same way, unless made from a frame already split."""
    if frame.empty or "lang" not in frame:
        return frame
    frame = with_row_identity(frame)
    # A row not split yet still shows its stored corpus name (a split one reads "name [sv]");
    # this holds for Original rows too, whose stored_run is None.
    whole = frame["corpus"] == frame["stored_corpus"]
    mixed = frame["corpus_hash"].isin(mixed_corpora(frame)) & whole
    if not mixed.any():
        return frame
    out = frame.copy()
    langs = out.loc[mixed, "lang"].astype(str)
    out.loc[mixed, "run_id"] = out.loc[mixed, "run_id"].astype(str) + LANGUAGE_SEPARATOR + langs
    out.loc[mixed, "corpus"] = out.loc[mixed, "corpus"].astype(str) + " [" + langs + "]"
    return out
