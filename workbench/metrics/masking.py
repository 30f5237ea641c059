"""What a run takes out of a document: share of words masked and information loss (paper 001 §6,
the utility columns of its Table 2: "% Masked" and "Info. Loss").

    words_masked      words of the original document that lie (wholly or partly) in a span the run
                      changed / all words of the original document
    information_loss  1 − C(pseudonymised document) / C(original document), C = size in bytes of the
                      UTF-8 text compressed with zlib (DEFLATE) at level 9

Both are computed per document and averaged over a run's documents: 001 reports "the average
percentage of words masked, as well as the information loss percentage" over its test documents.
Here the documents are those with at least one replaced span (the frame has no others).

A word is a maximal run of word characters (regex \\w+, Unicode) with the combining marks that
follow them (workbench.text.compare: "Göteborg" is one word in NFC and in NFD): "Oslo's" is two
words, "1975" one, punctuation none. A span is changed when the text placed for it differs from
its original (case-sensitive, compared in NFC: compare.same_text): a pseudonym, a label, a
[FAILED] token or nothing at all (a suppressed span, whose words count as masked). An imported
system's own detections outside the corpus spans (DocView.outside) count as changed text too:
both measures read the document as it wrote it.
A span replaced by itself masks nothing, so the `original` reference run reads 0 on both, as
001's "(No redaction)" row does.

information_loss is 001's measure of how much of the text's information a redaction removed.
001 redacts with a mask token, so its values lie in [0, 1]; a pseudonym can compress to more
bytes than its original (it adds words of its own), so here the value can be negative: the
pseudonymised text is no shorter in information than the original, which is not a sign of
information kept. The range is therefore (−∞, 1]; lower is better, as in 001.
"""

from __future__ import annotations

import zlib

import numpy as np
import pandas as pd

from workbench.metrics.base import LOWER, MetricInfo
from workbench.metrics.metric_frame import DocView, document_views, runs_of
from workbench.text.compare import same_text, word_spans

FAMILY = "masking"
COMPRESSION_LEVEL = 9  # zlib's best; fixed, so a value never depends on a library default
METRICS = (
    MetricInfo("words_masked", "words masked", FAMILY, 0, 1, LOWER, "001 §6 (Table 2 % Masked)",
               "share of the original document's words (\\w+) inside a span the run changed, mean over documents"),
    MetricInfo("information_loss", "info. loss", FAMILY, None, 1, LOWER, "001 §6 (Table 2 Info. Loss)",
               "1 − zlib-9 compressed size of the pseudonymised document / that of the original, mean over "
               "documents (negative: the pseudonymised text compresses to more bytes)"),
)


def compressed_size(text: str) -> int:
    """Bytes of the UTF-8 text compressed with zlib at COMPRESSION_LEVEL."""
    return len(zlib.compress(text.encode("utf-8"), COMPRESSION_LEVEL))


def changed_spans(view: DocView) -> list[tuple[int, int]]:
    """Original offsets of the spans whose placed text differs from the original, and of an imported
    system's own detections outside the spans (its over-masking counts as masking), in text order."""
    changed = [span for span, original, placed in zip(view.spans, view.originals, view.replacements)
               if not same_text(placed, original)]
    return sorted(changed + view.edited_outside())


def words_masked(text: str, changed: list[tuple[int, int]]) -> float:
    """Share of the words of text that overlap one of the changed (start, end) ranges (sorted)."""
    words = word_spans(text)
    if not words:
        return 0.0
    masked = sum(1 for a, b in words if any(a < end and start < b for start, end in changed))
    return masked / len(words)


def information_loss(original: str, pseudonymised: str, original_size: int | None = None) -> float:
    """1 − C(pseudonymised) / C(original); original_size: C(original) when already known."""
    size = compressed_size(original) if original_size is None else original_size
    return 1.0 - compressed_size(pseudonymised) / size


def document_masking(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per (run, document): words_masked and information_loss."""
    original_sizes: dict[tuple[str, str], int] = {}  # a document's C(original) is shared by every run
    records = []
    for view in document_views(frame):
        key = (view.corpus_hash, view.doc_id)
        if key not in original_sizes:
            original_sizes[key] = compressed_size(view.text)
        records.append((view.run_id, view.doc_id, words_masked(view.text, changed_spans(view)),
                        information_loss(view.text, view.pseudo_text, original_sizes[key])))
    return pd.DataFrame.from_records(records, columns=["run_id", "doc_id", "words_masked", "information_loss"])


def compute(frame: pd.DataFrame, context=None) -> pd.DataFrame:
    per_doc = document_masking(frame)
    names = [m.name for m in METRICS]
    return per_doc.groupby("run_id", sort=False)[names].mean().reindex(runs_of(frame)).astype(np.float64)
