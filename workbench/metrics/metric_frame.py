"""The metric frame and the per-document views metrics need.

`metric_frame` is workbench.tidy_frame.run_frame plus one column, `text`: the original
document text (the same str object on every row of a document, so it costs a pointer
per row). With it every metric is a pure function of one frame: the pseudonymised
document, its sentences and its summaries are all derived from the frame alone.

`originals_frame` turns a frame into pseudo-runs whose "pseudonym" is the original span
(run id `original:<corpus>`): the Original rows of 003 Table 2 and Figure 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Iterator

import numpy as np
import pandas as pd

from workbench.generators.base import FAILED
from workbench.model import Document, Span
from workbench.replace import pseudonymise
from workbench.text.sentences import merge_across_spans, sentence_of_spans, split_sentences

ORIGINAL = "original"
# The run id of an originals' pseudo-run is ORIGINAL_RUN_PREFIX + corpus name (+ "@" + hash
# where two corpora share a name); reports and pages tell these rows apart with is_original_run.
ORIGINAL_RUN_PREFIX = f"{ORIGINAL}:"


def is_original_run(run_id) -> bool:
    """True for the `original:<corpus>` pseudo-runs of originals_frame (the Original rows)."""
    return str(run_id).startswith(ORIGINAL_RUN_PREFIX)


def metric_frame(store, run_ids: Iterable[str]) -> pd.DataFrame:
    from workbench.tidy_frame import run_frame
    frame = run_frame(store, list(run_ids))
    texts: dict[tuple[str, str], str] = {}
    for corpus_hash in frame["corpus_hash"].unique():
        for doc in store.load_corpus(corpus_hash).documents:
            texts[(corpus_hash, doc.doc_id)] = doc.text
    frame["text"] = [texts[k] for k in zip(frame["corpus_hash"], frame["doc_id"])]
    return frame


def originals_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """One pseudo-run per corpus in which every span is 'replaced' by itself."""
    rows = frame.drop_duplicates(["corpus_hash", "doc_id", "span_index"]).copy()
    # Named by corpus; two different corpora under one name also get their hash.
    names = rows.drop_duplicates("corpus_hash").groupby("corpus")["corpus_hash"].transform("size")
    ambiguous = set(rows.drop_duplicates("corpus_hash").loc[names > 1, "corpus_hash"])
    rows["run_id"] = [f"{ORIGINAL_RUN_PREFIX}{c}" + (f"@{h[:12]}" if h in ambiguous else "")
                      for c, h in zip(rows["corpus"], rows["corpus_hash"])]
    rows["generator"], rows["model"], rows["mode"], rows["upos_filter"] = ORIGINAL, "-", "-", False
    rows["sees"], rows["consistent"] = "-", "-"
    rows["name"], rows["config"] = "", "{}"
    for column in ("window", "seed", "top_k", "leak_guard", "dtype"):  # options of no generation
        rows[column] = None
    rows["signature"] = "corpus=" + rows["corpus"] + "@" + rows["corpus_hash"].str[:12] + "|original spans"
    rows["source"] = ORIGINAL
    rows["pseudonym"] = rows["original"]
    rows["pick_upos"] = rows["original_upos"]
    rows["failed"] = False
    rows["seconds"] = np.nan
    return rows.sort_values(["run_id", "doc_id", "start"], kind="stable").reset_index(drop=True)


def runs_of(frame: pd.DataFrame) -> list[str]:
    """Run ids in frame order."""
    return list(dict.fromkeys(frame["run_id"]))


def placed_text(pseudonym: str, failed: bool) -> str:
    """What stands in the document for a span: 003 §4 enters the [FAILED] token itself."""
    return FAILED if failed else pseudonym


@lru_cache(maxsize=4096)
def _sentences(text: str, lang: str, spans: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    return tuple(merge_across_spans(split_sentences(text, lang), spans))


@dataclass(frozen=True, slots=True)
class DocView:
    """One document of one run: original and pseudonymised, with aligned sentences."""
    run_id: str
    corpus_hash: str
    doc_id: str
    lang: str
    text: str
    rows: np.ndarray  # frame index of each replaced span, in text order
    spans: tuple[tuple[int, int], ...]  # original offsets
    originals: tuple[str, ...]
    replacements: tuple[str, ...]  # as placed (FAILED spans carry "[FAILED]")
    pseudo_text: str
    placed: tuple[tuple[int, int], ...]  # offsets of each replacement in pseudo_text
    sentences: tuple[tuple[int, int], ...]  # in the original; no span crosses one
    pseudo_sentences: tuple[tuple[int, int], ...]  # the same sentences in pseudo_text
    sentence_of: tuple[int, ...]  # sentence index of each span

    def sentence_pair(self, k: int) -> tuple[str, str]:
        a, b = self.sentences[k]
        c, d = self.pseudo_sentences[k]
        return self.text[a:b], self.pseudo_text[c:d]


def document_views(frame: pd.DataFrame) -> Iterator[DocView]:
    """Views in frame order of runs and documents."""
    ordered = frame.sort_values(["run_id", "doc_id", "start"], kind="stable")
    order = {r: n for n, r in enumerate(runs_of(frame))}
    groups = sorted(ordered.groupby(["run_id", "doc_id"], sort=False), key=lambda g: order[g[0][0]])
    for (run_id, doc_id), g in groups:
        text = g["text"].iat[0]
        lang = g["lang"].iat[0]
        spans = tuple(zip(g["start"].tolist(), g["end"].tolist()))
        originals = tuple(g["original"].tolist())
        replacements = tuple(placed_text(p, f) for p, f in zip(g["pseudonym"].tolist(), g["failed"].tolist()))
        doc = Document(doc_id, text, lang, tuple(Span(a, b, o, "x", "x") for (a, b), o in zip(spans, originals)))
        pseudo_text, placed = pseudonymise(doc, dict(enumerate(replacements)))
        sentences = _sentences(text, lang, spans)
        yield DocView(run_id, g["corpus_hash"].iat[0], doc_id, lang, text, g.index.to_numpy(), spans, originals,
                      replacements, pseudo_text, tuple((r.start, r.end) for r in placed), sentences,
                      _shift_ranges(sentences, spans, replacements),
                      tuple(sentence_of_spans(list(sentences), spans)))


def _shift_ranges(ranges, spans, replacements) -> tuple[tuple[int, int], ...]:
    """Map original ranges whose ends never fall inside a span into the pseudonymised text."""
    deltas = np.cumsum([0] + [len(r) - (b - a) for (a, b), r in zip(spans, replacements)])
    ends = np.array([b for _, b in spans], dtype=np.int64)

    def shift(offset: int) -> int:
        # Replacements of spans that end at or before the offset have moved it.
        return offset + int(deltas[np.searchsorted(ends, offset, side="right")])

    return tuple((shift(a), shift(b)) for a, b in ranges)
