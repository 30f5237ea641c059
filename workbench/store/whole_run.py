"""Storing a whole run at once: what an import (workbench.exchange.importers) and a reference run
(workbench.exchange.reference) have in common.

Such a run has every pseudonym before anything is written, so it is stored in one go, in
one transaction: its corpus snapshot, the run, its predictions, its report, COMPLETE. A
process killed meanwhile (or a failure) leaves nothing of it: never a visible half-run that
`workbench runs` lists as running and whose advice names `generate`. The originals' UPOS (as a
generated run has them, for the UPOS metric) are tagged first, in a transaction of their
own: they are a cache, and tagging can take a while, during which the store's write lock is
not held. Asked again with the same signature it returns the run already stored: the run id
is the signature's hash, so the same file or kind gives the same id. A run left half-written
by a workbench before this one (or a process of one that died) is deleted and stored again.
The run's lease (RunStore.claim_run), taken and released inside the transaction, refuses a
run another live process is storing the older way.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from workbench.data_model import Corpus
from workbench.store.own_detections import save_own_detections
from workbench.store.records import COMPLETE, RUNNING, RunRecord, StoredPrediction
from workbench.store.run_reports import save_run_report
from workbench.store.signature import RunSignature


def store_whole_run(store, *, signature: RunSignature, corpus: Corpus, options: dict,
                    predictions: Sequence[StoredPrediction], report_kind: str, report: dict,
                    tag_originals: Callable[[], object], own_detections: dict | None = None) -> RunRecord:
    """Store the run of `signature` over `corpus` (or return the complete one already stored).

    options: the run's options column (what the command was given); report_kind/report: the
    body stored in run_reports; tag_originals: stores the originals' UPOS (the caller's
    tagger: the store knows no taggers), called before the run's transaction;
    own_detections: an import's edits outside every corpus span (workbench.store.own_detections)."""
    run_id = signature.run_id
    existing = store.get_run(run_id)
    if existing is not None and existing.status == COMPLETE:
        return existing
    tag_originals()
    with store.transaction(), store.claim_run(run_id):
        existing = store.get_run(run_id)
        if existing is not None and existing.status == COMPLETE:
            return existing  # stored by another process while this one prepared it
        store.save_corpus(corpus)
        if existing is not None:  # a run that died half-way: start it again
            store.delete_run(run_id)
        store.create_run(RunRecord.for_signature(
            signature, run_id=run_id, corpus_hash=corpus.content_hash, corpus_name=corpus.name,
            generator=signature.generator, model=signature.model, mode=signature.mode,
            upos_filter=signature.upos_filter, options=options, config=dict(signature.config),
            versions=dict(signature.versions), status=RUNNING, n_slots=corpus.n_slots, created=time.time(),
            finished=None, source=signature.source))
        store.add_predictions(run_id, predictions)
        save_run_report(store, run_id, report_kind, report)
        save_own_detections(store, run_id, own_detections or {})
        store.finish_run(run_id)
    return store.get_run(run_id)
