"""A pseudonym in its context, as an annotator sees it.

The context is the pseudonymised document of the same run (every replacement in place,
so earlier pseudonyms of an entity are visible), cut to the target sentence ± `window`
sentences: 003 generated with ± 2 sentences, so the annotator sees what the generator saw.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.data_model import Document
from workbench.store import RunStore
from workbench.store.own_detections import own_detections
from workbench.text.replace import Replaced, pseudonymise
from workbench.text.sentences import split_sentences


@dataclass(frozen=True, slots=True)
class ItemContext:
    run_id: str
    doc_id: str
    span_index: int
    lang: str
    label: str  # the original span's PII label
    entity_id: str
    original: str
    pseudonym: str
    failed: bool
    text: str  # the context: pseudonymised sentences around the target
    target: tuple[int, int]  # the target pseudonym's offsets in `text`
    others: tuple[Replaced, ...]  # the other replacements inside `text`, offsets relative to it


def _window(text: str, lang: str, start: int, end: int, window: int) -> tuple[int, int]:
    sentences = split_sentences(text, lang) or [(0, len(text))]
    hit = [k for k, (a, b) in enumerate(sentences) if a < end and b > start] or [0]
    first, last = max(0, hit[0] - window), min(len(sentences) - 1, hit[-1] + window)
    return sentences[first][0], max(sentences[last][1], end)


def item_context(store: RunStore, run_id: str, doc_id: str, span_index: int, window: int = 2,
                 _cache: dict | None = None) -> ItemContext:
    """`_cache` (optional, a dict) keeps loaded corpora and predictions across calls."""
    cache = _cache if _cache is not None else {}
    run = cache.get(("run", run_id)) or cache.setdefault(("run", run_id), store.resolve_run(run_id))
    corpus = cache.get(("corpus", run.corpus_hash)) or cache.setdefault(("corpus", run.corpus_hash),
                                                                         store.load_corpus(run.corpus_hash))
    preds = cache.get(("preds", run.run_id))
    if preds is None:
        preds = cache.setdefault(("preds", run.run_id), {})
        for p in store.predictions(run.run_id):
            preds.setdefault(p.doc_id, {})[p.span_index] = p
    # An import's own detections (edits outside every span): the annotator reads the system's document.
    outside = cache.get(("own", run.run_id))
    if outside is None:
        outside = cache.setdefault(("own", run.run_id), own_detections(store, run.run_id))
    doc: Document = corpus.document(doc_id)
    picks = {i: p.pseudonym for i, p in preds.get(doc_id, {}).items()}
    text, placed = pseudonymise(doc, picks, outside.get(doc_id, ()))
    target = next(r for r in placed if r.span_index == span_index)
    a, b = _window(text, doc.lang, target.start, target.end, window)
    others = tuple(Replaced(r.span_index, r.start - a, r.end - a, r.original, r.pseudonym)
                   for r in placed if r.span_index != span_index and r.start >= a and r.end <= b)
    span = doc.spans[span_index]
    return ItemContext(run.run_id, doc_id, span_index, doc.lang, span.label, span.entity_id, span.text,
                       target.pseudonym, preds[doc_id][span_index].failed, text[a:b],
                       (target.start - a, target.end - a), others)
