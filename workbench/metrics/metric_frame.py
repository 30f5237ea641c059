"""The metric frame and the per-document views metrics need.

`metric_frame` is workbench.store.tidy_frame.run_frame plus `identifier_type` (the span's TAB
DIRECT / QUASI / NO_MASK from the store's snapshot, "" where unknown) and two columns: `text`, the original
document text (the same str object on every row of a document, so it costs a pointer
per row), and `own_detections`, an imported system's edits outside every corpus span
(workbench.store.own_detections; the same tuple on every row of a run's document, () for
other runs). With them every metric is a pure function of one frame: the pseudonymised
document (as the system wrote it, own detections included), its sentences and its
summaries are all derived from the frame alone. Span-level metrics read the rows (the
corpus spans); document-level ones read DocView.pseudo_text.

`originals_frame` turns a frame into pseudo-runs whose "pseudonym" is the original span
(run id `original:<corpus>`, source "original"): the Original rows of 003 Table 2 and Figure 1.

A row's identity is read from columns by name, never parsed back from its run id (which is
only a unique label: `<run_id>`, `<run_id>@<lang>` for a language's part of a run, see
workbench.metrics.languages, or `original:<corpus>`):
    stored_run     the stored run the row describes; None on an Original row
    stored_corpus  the corpus's stored name (the `corpus` column may read "pgv-pii [sv]")
    lang           the row's language(s)
    source         "original" on an Original row (is_original), else the stored run's source
    spans_from     the source of the run whose spans the row's run carries: a reviewed run's
                   (workbench.exchange.review_import) is its first ancestor's that is not reviewed,
                   so a review of an imported run keeps the detection it inherits (its recall is
                   measured, workbench.metrics.detection); else the row's own source
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd

from workbench.data_model import Document, Span
from workbench.prediction_notes import FAILED
from workbench.text.compare import same_text
from workbench.text.replace import pseudonymise
from workbench.text.sentences import merge_across_spans, sentence_of_spans, split_sentences

ORIGINAL = "original"
# The run id of an originals' pseudo-run is ORIGINAL_RUN_PREFIX + corpus name (+ "@" + hash
# where two corpora share a name): a label for users, never parsed (see is_original).
ORIGINAL_RUN_PREFIX = f"{ORIGINAL}:"
# The columns that say what a row is (the module's docstring), beside the run's own columns.
IDENTITY_COLUMNS = ["stored_run", "stored_corpus"]
OWN_DETECTIONS = "own_detections"  # the column of an imported system's edits outside the spans
SPANS_FROM = "spans_from"  # the module's docstring


def is_original(row: pd.Series) -> bool:
    """An Original row of originals_frame (source "original"), never a stored run, not even
    the reference run whose generator is called "original" (its source is "reference")."""
    return row.get("source") == ORIGINAL


def run_rows(table: pd.DataFrame) -> list:
    """The index labels of the rows that describe stored runs (no Original row), in order."""
    return [i for i, source in zip(table.index, table["source"]) if source != ORIGINAL]


def stored_runs(table: pd.DataFrame) -> list[str]:
    """The stored runs behind a table's rows, each once, in order (a run over a mixed-language
    corpus has a row per language)."""
    return list(dict.fromkeys(table.loc[run_rows(table), "stored_run"]))


def with_row_identity(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with its IDENTITY_COLUMNS: where it lacks them, every row is a whole stored run
    under its stored corpus name (a frame straight from the store)."""
    if "stored_run" in frame:
        return frame
    out = frame.copy()
    out["stored_run"], out["stored_corpus"] = out["run_id"], out["corpus"]
    return out


def metric_frame(store, run_ids: Iterable[str]) -> pd.DataFrame:
    from workbench.store.own_detections import own_detections
    from workbench.store.tidy_frame import run_frame
    frame = run_frame(store, list(run_ids))
    texts: dict[tuple[str, str], str] = {}
    types: dict[tuple[str, str, int], str] = {}  # TAB's DIRECT / QUASI where the snapshot keeps them
    for corpus_hash in frame["corpus_hash"].unique():
        for doc in store.load_corpus(corpus_hash).documents:
            texts[(corpus_hash, doc.doc_id)] = doc.text
            types.update(((corpus_hash, doc.doc_id, i), s.identifier_type) for i, s in enumerate(doc.spans))
    frame["text"] = [texts[k] for k in zip(frame["corpus_hash"], frame["doc_id"])]
    frame["identifier_type"] = [types[k] for k in zip(frame["corpus_hash"], frame["doc_id"], frame["span_index"])]
    edits = {run_id: own_detections(store, run_id) for run_id in frame["run_id"].unique()}
    frame[OWN_DETECTIONS] = [edits[r].get(d, ()) for r, d in zip(frame["run_id"], frame["doc_id"])]
    frame["stored_run"], frame["stored_corpus"] = frame["run_id"], frame["corpus"]  # as with_row_identity
    spans_from = {run_id: _spans_from(store, run_id) for run_id in frame["run_id"].unique()}
    frame[SPANS_FROM] = frame["run_id"].map(spans_from)
    return frame


def _spans_from(store, run_id: str) -> str:
    """The source of the run whose spans this run carries: up a reviewed run's parents
    (a parent deleted since: "reviewed", which no family measures)."""
    from workbench.store.signature import REVIEWED
    run, seen = store.get_run(run_id), set()
    while run is not None and run.source == REVIEWED and run.run_id not in seen:
        seen.add(run.run_id)
        parent = store.get_run(str(run.config.get("parent", "")))
        if parent is None:
            return REVIEWED
        run = parent
    return run.source if run is not None else ""


def originals_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """One pseudo-run per corpus in which every span is 'replaced' by itself."""
    rows = with_row_identity(frame).drop_duplicates(["corpus_hash", "doc_id", "span_index"]).copy()
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
    rows["source"], rows["stored_run"], rows[SPANS_FROM] = ORIGINAL, None, ORIGINAL
    rows["pseudonym"] = rows["original"]
    rows["pick_upos"] = rows["original_upos"]
    rows["failed"] = False
    rows["seconds"] = np.nan
    if OWN_DETECTIONS in rows:
        rows[OWN_DETECTIONS] = [()] * len(rows)
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
    # An imported system's edits outside every span, (start, end, replacement) in the original's
    # offsets: in pseudo_text, never in spans (workbench.store.own_detections).
    outside: tuple[tuple[int, int, str], ...] = ()

    def edited_outside(self) -> list[tuple[int, int]]:
        """The original ranges of the own detections that changed the text they cover (one writing
        its text back changes nothing): what masking, TPS and TPI count as lost."""
        return changed_outside(self.text, self.outside)

    def sentence_pair(self, k: int) -> tuple[str, str]:
        a, b = self.sentences[k]
        c, d = self.pseudo_sentences[k]
        return self.text[a:b], self.pseudo_text[c:d]


def changed_outside(text: str, outside) -> list[tuple[int, int]]:
    """(start, end) of each own detection (start, end, replacement) whose replacement differs from
    text[start:end] (as text: compared in NFC, workbench.text.compare.same_text)."""
    return [(a, b) for a, b, replacement in outside if not same_text(replacement, text[a:b])]


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
        outside = tuple(g[OWN_DETECTIONS].iat[0]) if OWN_DETECTIONS in g else ()
        doc = Document(doc_id, text, lang, tuple(Span(a, b, o, "x", "x") for (a, b), o in zip(spans, originals)))
        pseudo_text, placed = pseudonymise(doc, dict(enumerate(replacements)), outside)
        # Every edit, spans and own detections, in text order: no sentence may end inside one.
        edits = sorted([(a, b, r) for (a, b), r in zip(spans, replacements)] + list(outside))
        edited = tuple((a, b) for a, b, _ in edits)
        sentences = _sentences(text, lang, edited)
        yield DocView(run_id, g["corpus_hash"].iat[0], doc_id, lang, text, g.index.to_numpy(), spans, originals,
                      replacements, pseudo_text, tuple((r.start, r.end) for r in placed), sentences,
                      _shift_ranges(sentences, edited, [r for _, _, r in edits]),
                      tuple(sentence_of_spans(list(sentences), spans)), outside)


def _shift_ranges(ranges, spans, replacements) -> tuple[tuple[int, int], ...]:
    """Map original ranges whose ends never fall inside a span into the pseudonymised text."""
    deltas = np.cumsum([0] + [len(r) - (b - a) for (a, b), r in zip(spans, replacements)])
    ends = np.array([b for _, b in spans], dtype=np.int64)

    def shift(offset: int) -> int:
        # Replacements of spans that end at or before the offset have moved it.
        return offset + int(deltas[np.searchsorted(ends, offset, side="right")])

    return tuple((shift(a), shift(b)) for a, b in ranges)
