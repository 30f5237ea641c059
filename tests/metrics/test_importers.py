"""Importing external runs: validation that names file/document/entry, nothing stored on
error, and an imported copy of a native run scoring exactly like it."""

from __future__ import annotations

import json
import math
import shutil

import pytest

from tests.metrics.conftest import WordListTagger, report_context
from workbench.exchange.importers import import_run
from workbench.infra.errors import CorpusError
from workbench.metrics import compute_metrics, family, metric_frame
from workbench.metrics.metric_frame import IDENTITY_COLUMNS
from workbench.store import RunStore


def _intact(corpus, replace=lambda s: s.text[::-1]):
    return {d.doc_id: [[s.start, s.end, replace(s)] for s in d.spans] for d in corpus.documents}


def _write(tmp_path, data, name="ext.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def _nothing_stored(store):
    return store.runs() == [] and store.corpora() == []


BAD = [
    # (how to break the file, message fragment, document named)
    (lambda d: "{not json", "invalid JSON at line 1", None),
    (lambda d: [1, 2], "found a JSON list", None),
    (lambda d: {**d, "nope": []}, "no such document", "nope"),
    (lambda d: {k: v for k, v in d.items() if k != "en-2"}, "document missing from the file", "en-2"),
    (lambda d: {**d, "en-2": d["en-2"][:-1]}, "no replacement for this span", "en-2"),
    (lambda d: {**d, "en-2": d["en-2"] + [d["en-2"][0]]}, "replaced twice", "en-2"),
    (lambda d: {**d, "en-2": [[15, 27, "X"]] + d["en-2"][1:]}, "no span of the corpus at [15, 27)", "en-2"),
    (lambda d: {**d, "sv-1": [[0, "11", "X"]] + d["sv-1"][1:]}, "offsets must be integers", "sv-1"),
    (lambda d: {**d, "sv-1": [[0, 11, "  "]] + d["sv-1"][1:]}, "non-empty string", "sv-1"),
    (lambda d: {**d, "sv-1": [[0, 11]] + d["sv-1"][1:]}, "expected [start, end, replacement]", "sv-1"),
    (lambda d: {**d, "sv-1": {"0": "x"}}, "expected a list", "sv-1"),
]


@pytest.mark.parametrize("breaks, message, doc_id", BAD, ids=[b[1][:24] for b in BAD])
def test_bad_files_are_refused_and_nothing_is_stored(tmp_path, store, tiny_corpus, breaks, message, doc_id):
    """The strict rule (`--strict`, the importer before issue 12); the alignment rule's own
    refusals are in tests/exchange/test_import_alignment.py."""
    data = breaks(_intact(tiny_corpus))
    path = _write(tmp_path, data if isinstance(data, str) else json.dumps(data))
    with pytest.raises(CorpusError, match=message.replace("[", r"\[").replace("(", r"\(").replace(")", r"\)")) as err:
        # whole_corpus: a file that leaves out a document is otherwise imported over the others (issue 24 item 5)
        import_run(store, path, tiny_corpus, tagger=WordListTagger(), strict=True, whole_corpus=True)
    assert str(path) in str(err.value)
    if doc_id:
        assert f"document {doc_id}" in str(err.value)
    assert _nothing_stored(store)


def test_duplicate_document_keys_are_refused(tmp_path, store, tiny_corpus):
    body = json.dumps(_intact(tiny_corpus))
    path = _write(tmp_path, body[:-1] + ', "en-1": []}')
    with pytest.raises(CorpusError, match="document listed twice"):
        import_run(store, path, tiny_corpus, tagger=WordListTagger())
    assert _nothing_stored(store)


def test_missing_original_keeps_the_span_and_counts_it_as_a_leak(tmp_path, store, tiny_corpus):
    data = _intact(tiny_corpus)
    data["en-2"] = data["en-2"][1:]  # Jan Kowalski left as it is
    record = import_run(store, _write(tmp_path, data), tiny_corpus, tagger=WordListTagger(), missing="original")
    frame = metric_frame(store, [record.run_id])
    kept = frame[(frame.doc_id == "en-2") & (frame.span_index == 0)].iloc[0]
    assert kept["pseudonym"] == "Jan Kowalski" and kept["note"].startswith("not replaced")
    assert record.source == "imported" and record.status == "complete" and len(frame) == 21


def test_failed_marker_and_reimport(tmp_path, store, tiny_corpus):
    data = _intact(tiny_corpus)
    data["en-1"][9][2] = "[FAILED]"
    path = _write(tmp_path, data)
    first = import_run(store, path, tiny_corpus, tagger=WordListTagger(), name="other-system")
    again = import_run(store, path, tiny_corpus, tagger=WordListTagger(), name="other-system")
    assert first.run_id == again.run_id and len(store.runs()) == 1
    frame = metric_frame(store, [first.run_id])
    assert frame["failed"].sum() == 1 and frame["generator"].iat[0] == "other-system"


DETECTION = [m.name for m in family("detection").METRICS]


def test_imported_copy_of_a_native_run_scores_exactly_like_it(tmp_path, baseline_store):
    """Export each baseline run of PGV-PII EN (intact format), import it, compare every metric.

    Issue 10 item 4: UPOS accuracy included, with the default context, for the UPOS baseline
    too (its recorded PUD gold tags are not in the exported file); only the _pick reading,
    which uses those recorded tags, may differ."""
    from workbench.exchange.exporters import export_run
    from workbench.loaders import shipped_corpus
    from workbench.upos import get_tagger
    path = tmp_path / "runs.sqlite"
    shutil.copy(baseline_store, path)  # the session store is read-only for tests
    store = RunStore(path)
    corpus = shipped_corpus("pgv-pii-en")
    natives = [r for r in store.runs() if r.corpus_name == "pgv-pii-en"]
    assert {r.generator for r in natives} == {"random", "upos"}
    pairs = []
    for native in natives:
        exported = export_run(store, native.run_id, "intact", tmp_path / f"{native.run_id}.json")
        pairs.append((native, import_run(store, exported, corpus, tagger=get_tagger("spacy", quiet=True))))
    # One table over both pairs (each run's row is its own); the report's tiny NER models and two
    # folds, since native and copy need only the same models, not the real ones (minutes).
    context = report_context()
    context.set_tagger(get_tagger("spacy", quiet=True))
    table = compute_metrics(metric_frame(store, [r.run_id for pair in pairs for r in pair]), context, originals=False)
    for native, imported in pairs:
        a, b = table.loc[native.run_id], table.loc[imported.run_id]
        assert b["source"] == "imported"
        for name in table.columns[table.columns.get_loc("form_freq_avg"):]:
            if name in IDENTITY_COLUMNS:  # what the row is (the stored run), not a measure
                continue
            if name == "seconds_per_span":
                assert math.isnan(b[name]) and a[name] >= 0  # an import was not timed
                continue
            if name in DETECTION:  # the import's recall is measured, the native run's is 1 by construction
                assert math.isnan(a[name]) or (name == "recall_by_construction" and a[name] == 1 and b[name] == 0)
                continue
            if name == "upos_accuracy_pick" and native.generator == "upos":
                # The recorded PUD gold tags an import cannot know: the pick reading is higher.
                assert a[name] > b[name] == b["upos_accuracy"]
                continue
            assert (math.isnan(a[name]) and math.isnan(b[name])) or a[name] == b[name], name
    store.close()
