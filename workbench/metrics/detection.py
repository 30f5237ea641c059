"""Detection quality of a run that brings its own spans (an imported run): how much of what the
corpus says must be masked the system did mask. TAB's evaluation (Pilán et al. 2022, "Evaluation
metrics": recall at token, mention and entity level, DIRECT and QUASI identifiers apart) and
paper 002's all-or-nothing recall (§3.3, §4.2: an entity is protected only if every mention is).

The gold spans are the corpus's spans to mask (the frame's rows). An import aligns the file's
entries to them (workbench.exchange.importers); a span no entry met keeps its original text, so:

    masked span   the text placed for it differs from its original (case-sensitive, both in NFC:
                  workbench.text.compare.same_text): a pseudonym, a label, "[FAILED]" or nothing
                  (a suppressed span is masked), and none of its words was kept (below). A span
                  replaced by itself was not masked, whether no entry met it or an entry wrote it
                  back (in the same or another normal form: NFD for NFC).
    masked token  a word (regex \\w+ with its combining marks, as words_masked counts them) of a
                  masked span, read in NFC. Partial
                  masking is read from the alignment where it is known: a span the import spliced
                  (an entry covered part of it; note "imported: spliced …") keeps the words that
                  lie wholly in the common prefix or suffix of its original and its placed text;
                  every other span is all-or-nothing. Words kept between two entries inside one
                  span are not told apart (counted masked).

    recall_mention      masked gold spans / gold spans
    recall_token        masked words / words of the gold spans (pooled over the run's spans)
    recall_entity_all   entities (entity_id within a document) whose every mention is masked /
                        entities (002's all-or-nothing recall; TAB's entity-level recall)
    *_direct, *_quasi   the same over spans of that identifier type (TAB's DIRECT / QUASI), read
                        from the frame's `identifier_type` column where it has one (with_identifier_types);
                        NaN where the run has no span of the type

    precision_ic        TAB's precision weighted by information content: of the words the system
                        masked, the IC-weighted share inside gold spans (workbench.metrics.
                        detection_precision: the rule, the masked LM and its fallback)
    precision_token     the same with every word weighing 1

The system's masked ranges (system_masks): each gold span whose placed text differs from its
original (a spliced span: the part between the common prefix and suffix), and each of the
system's own detections outside the gold spans (the frame's OWN_DETECTIONS column, where the
frame has it) whose replacement differs from the text it covers.

A run whose spans are the gold spans themselves (generated on them, or a reference run) masks
every one of them and nothing else by construction, so its recall and precision are no
measurement: those columns are NaN and recall_by_construction reads 1 (0 for an imported run,
whose recall and precision are measured). The `original` reference run therefore reads NaN
too, not 0: what it leaves visible is read in leak_verbatim and words_masked.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.metrics.base import HIGHER, NEUTRAL, MetricInfo, remembered
from workbench.metrics.detection_precision import (
    TAB_IC_MODEL,
    DocumentMasks,
    UniformWeights,
    ic_weighted_precision,
    information_weights,
)
from workbench.metrics.metric_frame import OWN_DETECTIONS, SPANS_FROM, changed_outside, placed_text, runs_of
from workbench.prediction_notes import NOTE_SPLICED
from workbench.text.compare import nfc, same_text, word_spans

FAMILY = "detection"
# What of MetricConfig.describe() it reads, the models it loads (workbench.metrics.model_use).
MODEL_SETTINGS = ("ic_model", "dtype")
MEASURED_SOURCE = "imported"  # the only runs that bring their own spans
# A reviewed run of an imported run carries its parent's spans (and own detections): read
# through the frame's spans_from column where it has one (workbench.metrics.metric_frame).
IDENTIFIER_TYPES = ("DIRECT", "QUASI")
TAB = "TAB (Pilán et al. 2022) evaluation"


def _recall(name: str, label: str, source: str, what: str) -> MetricInfo:
    return MetricInfo(name, label, FAMILY, 0, 1, HIGHER, source,
                      f"{what}; imported runs only (NaN where recall is 1 by construction)")


METRICS = (
    _recall("recall_mention", "mention", f"{TAB}: mention-level recall", "share of gold spans the run masked"),
    _recall("recall_token", "token", f"{TAB}: token-level recall",
            "share of the gold spans' words (\\w+) inside masked text"),
    _recall("recall_entity_all", "entity (all)", "002 §3.3, §4.2 all-or-nothing recall; TAB entity-level recall",
            "share of entities (per document) whose every mention the run masked"),
    _recall("recall_mention_direct", "mention DIRECT", f"{TAB}: DIRECT identifiers",
            "recall_mention over DIRECT spans"),
    _recall("recall_mention_quasi", "mention QUASI", f"{TAB}: QUASI identifiers", "recall_mention over QUASI spans"),
    _recall("recall_token_direct", "token DIRECT", f"{TAB}: DIRECT identifiers", "recall_token over DIRECT spans"),
    _recall("recall_token_quasi", "token QUASI", f"{TAB}: QUASI identifiers", "recall_token over QUASI spans"),
    MetricInfo("precision_ic", "precision (IC)", FAMILY, 0, 1, HIGHER, f"{TAB}: precision weighted by information "
               "content", "information-weighted share of the words the run masked that lie in gold spans (IC = "
               "-log2 p under a masked LM); imported runs only (NaN where it is 1 by construction)"),
    MetricInfo("precision_token", "precision (token)", FAMILY, 0, 1, HIGHER, f"{TAB}: uniform token weights",
               "share of the words the run masked that lie in gold spans; imported runs only"),
    MetricInfo("recall_by_construction", "by constr.", FAMILY, 0, 1, NEUTRAL, "beyond TAB (issue 26)",
               "1: the run's spans are the gold spans (generated or reference run), recall and precision are 1 "
               "by construction and their columns are NaN; 0: an imported run, recall and precision measured"),
)
# The per-span metrics (their per-label means are workbench.metrics.per_label's); the token
# recalls are pooled over words and the entity recall over entities, so they are not means over spans.
SPAN_METRICS = ("recall_mention", "recall_mention_direct", "recall_mention_quasi")


def _common_prefix(a: str, b: str) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def masked_words(original: str, placed: str, spliced: bool) -> tuple[int, int]:
    """(masked, all) words of a gold span whose placed text is `placed`, both read in NFC."""
    original, placed = nfc(original), nfc(placed)
    words = word_spans(original)
    if placed == original:
        return 0, len(words)
    if not spliced:
        return len(words), len(words)
    prefix = _common_prefix(original, placed)
    suffix = min(_common_prefix(original[::-1], placed[::-1]), len(original) - prefix)
    kept = sum(1 for a, b in words if b <= prefix or a >= len(original) - suffix)
    return len(words) - kept, len(words)


def span_detection(frame: pd.DataFrame) -> pd.DataFrame:
    """Per row (index: the frame's): measured (imported run), masked (0/1), masked_words, words,
    identifier_type ("" where the frame has none)."""
    notes = frame["note"].fillna("").astype(str) if "note" in frame else pd.Series("", index=frame.index)
    placed = [placed_text(p, f) for p, f in zip(frame["pseudonym"], frame["failed"])]
    words = [masked_words(o, p, n == NOTE_SPLICED)
             for o, p, n in zip(frame["original"], placed, notes)]
    types = frame["identifier_type"].fillna("").astype(str) if "identifier_type" in frame else ""
    return pd.DataFrame({
        "measured": (frame[SPANS_FROM if SPANS_FROM in frame else "source"] == MEASURED_SOURCE).to_numpy(),
        # A mention is masked when its text changed and none of its words was kept (a span spliced
        # with a word of its own left, "Jan X" for "Jan Kowalski", still names its entity).
        "masked": [float(not same_text(p, o) and m == n) for p, o, (m, n) in zip(placed, frame["original"], words)],
        "masked_words": [m for m, _ in words], "words": [n for _, n in words],
        "identifier_type": types,
    }, index=frame.index)


def _detection(frame: pd.DataFrame, context) -> pd.DataFrame:
    return remembered(context, FAMILY, frame, lambda: span_detection(frame))


def span_values(frame: pd.DataFrame, context=None) -> pd.DataFrame:
    """Per row: recall_mention (1 masked, 0 not; NaN outside an imported run) and its DIRECT and
    QUASI parts (NaN on spans of another type)."""
    d = _detection(frame, context)
    mention = d["masked"].where(d["measured"])
    out = {"recall_mention": mention}
    for kind in IDENTIFIER_TYPES:
        out[f"recall_mention_{kind.lower()}"] = mention.where(d["identifier_type"] == kind)
    return pd.DataFrame(out, index=frame.index)


def _token_recall(rows: pd.DataFrame) -> float:
    words = rows["words"].sum()
    return float(rows["masked_words"].sum() / words) if words else np.nan


def _changed_range(start: int, original: str, placed: str, spliced: bool) -> tuple[int, int] | None:
    """The characters of a gold span the system masked: all of it, or for a spliced span the part
    between the common prefix and suffix of its original and placed text; None if unchanged.
    Offsets are the document's, so the prefix and suffix are compared as the code points stand."""
    if same_text(placed, original):
        return None
    if not spliced:
        return start, start + len(original)
    prefix = _common_prefix(original, placed)
    suffix = min(_common_prefix(original[::-1], placed[::-1]), len(original) - prefix)
    return start + prefix, start + len(original) - suffix


def system_masks(frame_rows: pd.DataFrame) -> list[DocumentMasks]:
    """Per document of one run: its text, the system's masked ranges (module docstring), the gold spans."""
    out = []
    for _, g in frame_rows.groupby("doc_id", sort=False):
        text = g["text"].iat[0]
        notes = g["note"].fillna("").astype(str) if "note" in g else [""] * len(g)
        changed = [_changed_range(a, o, placed_text(p, f), n == NOTE_SPLICED)
                   for a, o, p, f, n in zip(g["start"], g["original"], g["pseudonym"], g["failed"], notes)]
        own = g[OWN_DETECTIONS].iat[0] if OWN_DETECTIONS in g else ()
        out.append(DocumentMasks(text, tuple(r for r in changed if r) + tuple(changed_outside(text, own)),
                                 tuple(zip(g["start"], g["end"])), g["lang"].iat[0]))
    return out


def _precision(frame_rows: pd.DataFrame, context) -> dict[str, float]:
    docs = system_masks(frame_rows)
    ref = context.config.ic_model if context is not None else TAB_IC_MODEL
    texts = {lang: [d.text for d in docs if d.lang == lang] for lang in {d.lang for d in docs}}
    cache = context.cache("results") if context is not None else None
    return {"precision_ic": ic_weighted_precision(docs, lambda lang: information_weights(ref, lang, texts[lang],
                                                                                         cache=cache)),
            "precision_token": ic_weighted_precision(docs, UniformWeights())}


def _run_row(rows: pd.DataFrame, frame_rows: pd.DataFrame, context=None) -> dict[str, float]:
    if not rows["measured"].iat[0]:
        return {"recall_by_construction": 1.0}
    row = {"recall_by_construction": 0.0, "recall_mention": rows["masked"].mean(),
           "recall_token": _token_recall(rows)}
    entities = rows["masked"].groupby([frame_rows["doc_id"], frame_rows["entity_id"]], sort=False).min()
    row["recall_entity_all"] = float(entities.mean())
    for kind in IDENTIFIER_TYPES:
        typed = rows[rows["identifier_type"] == kind]
        row[f"recall_mention_{kind.lower()}"] = typed["masked"].mean() if len(typed) else np.nan
        row[f"recall_token_{kind.lower()}"] = _token_recall(typed)
    return {**row, **_precision(frame_rows, context)}


def compute(frame: pd.DataFrame, context=None) -> pd.DataFrame:
    d = _detection(frame, context)
    names = [m.name for m in METRICS]
    rows = {run_id: _run_row(d.loc[g.index], g, context) for run_id, g in frame.groupby("run_id", sort=False)}
    table = pd.DataFrame.from_dict(rows, orient="index").reindex(index=runs_of(frame), columns=names)
    return table.astype(np.float64)


def with_identifier_types(frame: pd.DataFrame, corpus) -> pd.DataFrame:
    """The frame with an `identifier_type` column read from a loaded corpus (the TAB release
    loader keeps DIRECT / QUASI; the run store does not: workbench.data_model.Span.identifier_type)."""
    types = {(d.doc_id, i): s.identifier_type for d in corpus.documents for i, s in enumerate(d.spans)}
    out = frame.copy()
    out["identifier_type"] = [types.get((doc, int(i)), "") for doc, i in zip(frame["doc_id"], frame["span_index"])]
    return out
