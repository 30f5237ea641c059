"""An imported system's own detections (issue 26, Deliver 1): entries outside every corpus span are
applied to the document text (workbench.exchange.alignment rule 7), kept apart from the span
predictions, so span metrics read the corpus spans and document measures the text the system wrote.

The corpus is test_import_alignment's: 'applicant' and the 'Dr ' before 'Jan Kowalski' are no
corpus spans, so a detector that replaces them edits text outside the spans."""

from __future__ import annotations

import json

import pytest

from tests.exchange.test_import_alignment import TEXT, at, make_corpus, write
from tests.metrics.conftest import WordListTagger
from workbench.exchange.alignment import COVERING, LEFT_OVER
from workbench.exchange.alignment_report import alignment_lines
from workbench.exchange.exporters import export_run
from workbench.exchange.importers import aligned_file, import_run
from workbench.metrics.masking import changed_spans, words_masked
from workbench.metrics.metric_frame import document_views, metric_frame
from workbench.privacy.reid_attacks.reid import attacked_texts
from workbench.store.own_detections import own_detections


def applied(text, entries):
    """The system's document by hand: its (disjoint) entries written into the text."""
    out, cursor = [], 0
    for start, end, new in sorted(entries):
        out += [text[cursor:start], new]
        cursor = end
    return "".join(out) + text[cursor:]


# A detector's file for d1: 'applicant' (no corpus span), 'Dr Jan Kowalski' (covers the span
# 'Jan Kowalski' and 'Dr ' outside it) and 'Warsaw' (a corpus span, matched).
DETECTOR = {"d1": [[*at("applicant"), "claimant"], [at("Dr")[0], at("Jan Kowalski")[1], "Dr X"],
                   [*at("Warsaw"), "Y"]]}


@pytest.fixture
def corpus():
    return make_corpus()


def test_entries_outside_the_spans_are_kept_apart_and_the_spans_read_as_before(corpus):
    aligned = aligned_file("det.json", DETECTOR, corpus)
    dr = at("Dr")[0]
    # 'applicant' whole, and the 'Dr ' before the covered span suppressed: apart from the spans
    assert aligned.own_detections == {"d1": [(at("applicant")[0], at("applicant")[1], "claimant"),
                                             (dr, at("Jan Kowalski")[0], "")]}
    spans = {s.span_index: s.replacement for s in aligned.spans if s.doc_id == "d1" and not s.missing}
    assert sorted(spans.values()) == ["Dr X", "Y"]  # the corpus spans get what they got before rule 7
    body = aligned.report.body()
    assert body["entries"][LEFT_OVER] == 1 and body["entries"][COVERING] == 1
    assert body["outside_spans"] == {"edits": 2, "characters": len("applicant") + len("Dr")}


def test_a_piece_of_only_white_space_outside_the_spans_stays(corpus):
    # ' Warsaw' covers the span and the space before it: removing the space would join two words
    start, end = at("Warsaw")
    aligned = aligned_file("f.json", {"d1": [[start - 1, end, "Oslo"]]}, corpus)
    assert aligned.own_detections == {}


def test_the_imported_run_holds_the_document_the_system_wrote(store, tmp_path, corpus):
    run = import_run(store, write(tmp_path, DETECTOR), corpus, tagger=WordListTagger())
    assert run.config == {"own_detections": "applied"}
    expected = applied(TEXT, [tuple(e) for e in DETECTOR["d1"]])
    assert attacked_texts(store, run)["d1"] == expected  # what TRIR and the inference attack read
    frame = metric_frame(store, [run.run_id])
    views = {v.doc_id: v for v in document_views(frame)}
    assert views["d1"].pseudo_text == expected  # what ROUGE, the classifier, NMI, perplexity read
    # the rows are the corpus spans only, their pseudonyms placed where the view says
    d1 = frame[frame["doc_id"] == "d1"]
    assert set(d1["original"]) == {s.text for s in corpus.document("d1").spans}
    for (a, b), new in zip(views["d1"].placed, views["d1"].replacements):
        assert views["d1"].pseudo_text[a:b] == new
    # the pseudonymised sentences are the original ones with every edit applied
    first = views["d1"].sentence_pair(0)[1]
    assert first.startswith("The claimant, a doctor-patient of Dr X, lives in Y.")
    assert any("edit(s) outside every corpus span applied" in line for line in alignment_lines(store, run.run_id))


def test_a_file_without_own_detections_keeps_its_run_id_and_config(store, tmp_path, corpus):
    data = {"d1": [[*at("Warsaw"), "Y"]]}
    run = import_run(store, write(tmp_path, data), corpus, tagger=WordListTagger())
    assert run.config == {} and own_detections(store, run.run_id) == {}


def test_over_masking_counts_as_masked_words(store, tmp_path, corpus):
    run = import_run(store, write(tmp_path, DETECTOR), corpus, tagger=WordListTagger())
    view = next(v for v in document_views(metric_frame(store, [run.run_id])) if v.doc_id == "d1")
    # 'applicant', 'Dr', 'Jan', 'Kowalski', 'Warsaw' of the document's 20 words (\w+)
    assert words_masked(TEXT, changed_spans(view)) == pytest.approx(5 / 20)


def test_export_writes_the_own_detections_and_imports_back_to_the_same_document(store, tmp_path, corpus):
    run = import_run(store, write(tmp_path, DETECTOR), corpus, tagger=WordListTagger())
    out = export_run(store, run.run_id, "intact", tmp_path / "back.json")
    again = import_run(store, out, corpus, tagger=WordListTagger(), name="again")
    assert attacked_texts(store, again) == attacked_texts(store, run)
    assert json.loads(out.read_text(encoding="utf-8"))["d1"][0] == [*at("applicant"), "claimant"]


def test_deleting_the_run_deletes_its_own_detections(store, tmp_path, corpus):
    run = import_run(store, write(tmp_path, DETECTOR), corpus, tagger=WordListTagger())
    assert store.db.execute("SELECT count(*) FROM own_detections").fetchone()[0] == 2
    store.delete_run(run.run_id)
    assert store.db.execute("SELECT count(*) FROM own_detections").fetchone()[0] == 0


def test_identifier_types_travel_with_the_corpus_snapshot(store, corpus):
    from dataclasses import replace

    from workbench.data_model import Corpus, Document
    typed = Corpus(corpus.name, corpus.source, tuple(
        Document(d.doc_id, d.text, d.lang, tuple(replace(s, identifier_type="DIRECT" if s.label == "PERSON"
                                                         else "QUASI") for s in d.spans), d.meta)
        for d in corpus.documents))
    assert typed.content_hash == corpus.content_hash  # the types are no part of the hash
    store.save_corpus(corpus)  # a snapshot saved without types (as before migration 8) ...
    assert {s.identifier_type for d in store.load_corpus(corpus.content_hash).documents for s in d.spans} == {""}
    store.save_corpus(typed)  # ... gets them when the corpus is saved again with them
    loaded = store.load_corpus(typed.content_hash)
    assert [s.identifier_type for s in loaded.documents[0].spans] == \
        [s.identifier_type for s in typed.documents[0].spans]
    assert loaded.identifier_types_hash == typed.identifier_types_hash != ""


def test_a_real_detectors_masking_file_removes_every_character_it_masks(store, tmp_path):
    """TAE's TAB_test_Presidio.json (two documents, unedited): Presidio masks text inside, across
    and outside tab-test's spans; the document the workbench attacks has none of it left."""
    from tests.exchange.test_import_alignment import DATA
    from workbench.loaders import shipped_corpus
    from workbench.loaders.subset import select_documents
    corpus = select_documents(shipped_corpus("tab-test"), keep="001-61807,001-61253")
    data = json.loads((DATA / "presidio_tab_sample.json").read_text(encoding="utf-8"))
    run = import_run(store, DATA / "presidio_tab_sample.json", corpus, tagger=WordListTagger())
    texts = attacked_texts(store, run)
    views = {v.doc_id: v for v in document_views(metric_frame(store, [run.run_id]))}
    for doc in corpus.documents:
        masked = {p for start, end in data[doc.doc_id] for p in range(start, end) if not doc.text[p].isspace()}
        kept = len("".join(doc.text.split())) - len(masked)
        assert len("".join(texts[doc.doc_id].split())) == kept, doc.doc_id
        assert views[doc.doc_id].pseudo_text == texts[doc.doc_id]


def test_the_metric_frame_reads_the_identifier_types_from_the_snapshot(store, tmp_path, corpus):
    from dataclasses import replace

    from workbench.data_model import Corpus, Document
    typed = Corpus(corpus.name, corpus.source, tuple(
        Document(d.doc_id, d.text, d.lang, tuple(replace(s, identifier_type="DIRECT" if s.label == "PERSON"
                                                         else "QUASI") for s in d.spans), d.meta)
        for d in corpus.documents))
    run = import_run(store, write(tmp_path, {"d1": [[*at("Warsaw"), "Y"]]}), typed, tagger=WordListTagger())
    frame = metric_frame(store, [run.run_id])
    assert dict(zip(frame["original"], frame["identifier_type"])) == {
        s.text: ("DIRECT" if s.label == "PERSON" else "QUASI") for s in corpus.document("d1").spans}


def test_annotators_read_the_document_the_system_wrote(store, tmp_path, corpus):
    """The error-annotation context and the doccano export show an import's own detections too, and
    the doccano file imports back (its text is the system's document)."""
    from workbench.annotation import AnnotationStore
    from workbench.annotation.pseudonym_context import item_context
    from workbench.doccano.format import export_lines, import_export
    run = import_run(store, write(tmp_path, DETECTOR), corpus, tagger=WordListTagger())
    written = attacked_texts(store, run)["d1"]
    warsaw = next(i for i, s in enumerate(corpus.document("d1").spans) if s.text == "Warsaw")
    context = item_context(store, run.run_id, "d1", warsaw, window=5)
    assert "The claimant, a doctor-patient of Dr X, lives in" in context.text
    annotations = AnnotationStore(store)
    lines = export_lines(annotations, run.run_id)
    line = next(x for x in lines if x["doc_id"] == "d1")
    assert line["text"] == written and {"Dr X", "Y"} <= {written[a:b] for a, b, _ in line["label"]}
    path = tmp_path / "back.jsonl"
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    assert import_export(annotations, path).untagged == sum(len(x["label"]) for x in lines)
