"""store_whole_run (workbench.store.whole_run): the one path imports and reference runs are stored by."""

from __future__ import annotations

import sqlite3

import pytest

from workbench.store import COMPLETE, RUNNING, RunRecord, StoredPrediction
from workbench.store.run_reports import run_report
from workbench.store.signature import REFERENCE, RunSignature
from workbench.store.whole_run import store_whole_run


def _signature(corpus) -> RunSignature:
    return RunSignature(corpus_name=corpus.name, corpus_hash=corpus.content_hash, generator="label", model="reference",
                        mode="-", upos_filter=False, tagger="t", versions={"workbench": "0"}, source=REFERENCE)


def _predictions(corpus) -> list[StoredPrediction]:
    return [StoredPrediction(d.doc_id, i, s.label, (s.label,), None, None, False, "test", 0.0, 0)
            for d in corpus.documents for i in d.masked_spans for s in (d.spans[i],)]


def _store(store, corpus, predictions=None, tagged=None):
    return store_whole_run(store, signature=_signature(corpus), corpus=corpus, options={"kind": "label"},
                           predictions=_predictions(corpus) if predictions is None else predictions,
                           report_kind="reference", report={"spans": 1},
                           tag_originals=lambda: None if tagged is None else tagged.append(1))


def test_a_whole_run_is_stored_complete_with_its_record_report_and_predictions(store, tiny_corpus):
    tagged = []
    record = _store(store, tiny_corpus, tagged=tagged)
    signature = _signature(tiny_corpus)
    assert record.run_id == signature.run_id and record.status == COMPLETE and record.finished is not None
    assert (record.generator, record.model, record.mode, record.source) == ("label", "reference", "-", REFERENCE)
    assert record.options == {"kind": "label"} and record.n_slots == tiny_corpus.n_slots
    assert record.signature == signature.render()
    assert store.count_predictions(record.run_id) == len(_predictions(tiny_corpus))
    assert run_report(store, record.run_id, "reference") == {"spans": 1}
    assert tagged == [1] and store.load_corpus(tiny_corpus.content_hash) == tiny_corpus


def test_asking_again_returns_the_stored_run_without_writing(store, tiny_corpus):
    first = _store(store, tiny_corpus)
    tagged = []
    again = _store(store, tiny_corpus, tagged=tagged)
    assert again == first and tagged == []  # nothing tagged or written the second time


def test_a_half_written_run_is_stored_again_and_a_failure_leaves_nothing(store, tiny_corpus):
    signature = _signature(tiny_corpus)
    store.save_corpus(tiny_corpus)
    store.create_run(RunRecord(run_id=signature.run_id, signature=signature, corpus_hash=tiny_corpus.content_hash,
                               corpus_name=tiny_corpus.name, generator="label", model="reference", mode="-",
                               upos_filter=False, options={}, config={}, versions={}, status=RUNNING, n_slots=1,
                               created=0.0, finished=None, source=REFERENCE))
    store.add_predictions(signature.run_id, _predictions(tiny_corpus)[:1])  # a process that died here
    assert _store(store, tiny_corpus).status == COMPLETE
    assert store.count_predictions(signature.run_id) == len(_predictions(tiny_corpus))

    store.delete_run(signature.run_id)
    twice = _predictions(tiny_corpus)[:1] * 2  # a (run, document, span) stored twice is an error
    with pytest.raises(sqlite3.IntegrityError):
        _store(store, tiny_corpus, predictions=twice)
    assert store.get_run(signature.run_id) is None and store.count_predictions(signature.run_id) == 0
