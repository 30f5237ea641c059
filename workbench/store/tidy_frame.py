"""The one tidy frame everything downstream of generation reads: a row per span × run.

Metrics are pure functions of this frame (workbench.metrics); reports and the dashboard
build it once and pass it on.

Columns
    run_id, signature, generator, model, mode, upos_filter, corpus, corpus_hash, source
    tagger              the tagger the run recorded (its original UPOS were tagged with it)
    lang, doc_id, span_index, start, end, label, entity_id
    original            the span's text
    original_upos       UPOS of its right-most token in the original document (tagger of the run)
    pseudonym           what replaced it ("[FAILED]" when failed)
    rank, pick_upos     position of the pick among the candidates; its UPOS if the filter tagged it
    n_candidates, failed, note, seconds, requests
    sees, consistent    what the generator saw of the originals (Generator.sees_summary; "-" for
                        runs not generated) and the entity consistency option (off | document | corpus)
    name                the run's stored name ("" when it has none: reports then build one)
    window, seed, top_k, leak_guard
                        the generation options (None for imported and reference runs)
    dtype               the number format of a torch generator (None for one without a model)
    config              the generator's config as JSON (every generator-specific setting)
    upos_fallback       the UPOS filter found no candidate of the original's UPOS and kept the top-1
                        (True), found one (False); empty where the filter did not choose
    morph_filter        the run chose with the morphology filter (True), or not (False); None for
                        runs not generated
Columns added later go at the end, so those that `export --format csv/parquet` readers
already use keep their places.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

import pandas as pd

from workbench.store import RunStore
from workbench.store.signature import GENERATED

COLUMNS = ["run_id", "signature", "generator", "model", "mode", "upos_filter", "corpus", "corpus_hash", "source",
           "tagger",
           "lang", "doc_id", "span_index", "start", "end", "label", "entity_id", "original", "original_upos",
           "pseudonym", "rank", "pick_upos", "n_candidates", "failed", "note", "seconds", "requests",
           "sees", "consistent", "name", "window", "seed", "top_k", "leak_guard", "dtype", "config",
           "upos_fallback", "morph_filter"]


def run_frame(store: RunStore, run_ids: Iterable[str]) -> pd.DataFrame:
    """Rows for the given runs (ids or unique prefixes), in run, document, span order."""
    frames = []
    for run_id in run_ids:
        run = store.resolve_run(run_id)
        corpus = store.load_corpus(run.corpus_hash)
        tagger = run.tagger
        upos = store.span_upos(run.corpus_hash, tagger) if tagger else {}
        preds = {(p.doc_id, p.span_index): p for p in store.predictions(run.run_id)}
        rows = []
        generated = run.source == GENERATED
        sees, consistent = (run.sees_level, run.consistency) if generated else ("-", "-")
        morph = bool(run.options.get("morph_filter", False)) if generated else None
        # One string object per run: the frame holds a pointer per row, not a copy.
        run_facts = (run.name or "", run.window, run.seed, run.top_k, run.leak_guard, run.dtype,
                     json.dumps(run.config, sort_keys=True, default=str))
        for doc in corpus.documents:
            for i, span in enumerate(doc.spans):
                p = preds.get((doc.doc_id, i))
                if p is None:
                    continue  # not replaced (mask=False) or the run is incomplete
                rows.append((run.run_id, run.signature, run.generator, run.model, run.mode, run.upos_filter,
                             run.corpus_name, run.corpus_hash, run.source, tagger, doc.lang,
                             doc.doc_id, i, span.start, span.end, span.label, span.entity_id, span.text,
                             upos.get((doc.doc_id, i)),
                             p.pseudonym, p.rank, p.pick_upos, len(p.candidates), p.failed, p.note, p.seconds,
                             p.requests, sees, consistent, *run_facts, p.upos_fallback, morph))
        frames.append(pd.DataFrame(rows, columns=COLUMNS))
    if not frames:
        return pd.DataFrame(columns=COLUMNS)
    return pd.concat(frames, ignore_index=True)
