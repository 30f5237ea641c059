"""`import-run` of a file that names only some documents, and what its report shows (issue 24
items 5 and 9).

A file covering 2 of tab-test's 127 documents was stored as a "complete" run of 127 documents in
which 125 kept their original text, said only in one line of the alignment report. Now it is a
run over the documents the file names (as --docs selects them); --whole-corpus imports over all,
and the summary line warns with the count of spans that kept their original text. The stored and
printed alignment report gives spans by offsets and label, never their original text."""

from __future__ import annotations

import json

from tests.exchange.test_import_alignment import at, exact_file, make_corpus, write
from tests.helpers.entry_point import wb
from tests.metrics.conftest import WordListTagger
from workbench.exchange.importers import import_run, kept_original
from workbench.store import RunStore
from workbench.store.run_reports import ALIGNMENT, run_report


def _corpus_file(tmp_path, corpus):
    """The corpus as a doccano JSONL file, for the CLI."""
    path = tmp_path / "corpus.jsonl"
    lines = [json.dumps({"doc_id": d.doc_id, "text": d.text, "lang": d.lang,
                         "label": [[s.start, s.end, s.label] for s in d.spans]}, ensure_ascii=False)
             for d in corpus.documents]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _one_document(corpus, doc_id="en-2"):
    doc = corpus.document(doc_id)
    return {doc_id: [[s.start, s.end, f"R{i}"] for i, s in enumerate(doc.spans) if s.mask]}


def test_a_file_naming_some_documents_imports_only_those(tmp_path, store, tiny_corpus):
    run = import_run(store, write(tmp_path, _one_document(tiny_corpus)), tiny_corpus, tagger=WordListTagger())
    en2 = tiny_corpus.document("en-2")
    assert run.corpus_name == "tiny:1docs" and run.status == "complete"
    assert run.n_slots == len(en2.masked_spans)
    assert {p.doc_id for p in store.predictions(run.run_id)} == {"en-2"}
    assert [d.doc_id for d in store.load_corpus(run.corpus_hash).documents] == ["en-2"]
    assert kept_original(store, run.run_id) == 0
    assert run_report(store, run.run_id, ALIGNMENT)["documents_not_in_file"] == []


def test_the_subset_is_the_one_docs_selects(tmp_path, store, tiny_corpus):
    """The same corpus, name and content hash as `--docs en-2`: the run is the same run."""
    from workbench.loaders.subset import select_documents
    run = import_run(store, write(tmp_path, _one_document(tiny_corpus)), tiny_corpus, tagger=WordListTagger())
    selected = select_documents(tiny_corpus, keep="en-2")
    assert (run.corpus_name, run.corpus_hash) == (selected.name, selected.content_hash)
    again = import_run(store, write(tmp_path, _one_document(tiny_corpus)), selected, tagger=WordListTagger())
    assert again.run_id == run.run_id


def test_the_cli_says_which_documents_and_whole_corpus_warns_with_the_count(tmp_path, tiny_corpus):
    corpus = _corpus_file(tmp_path, tiny_corpus)
    data = write(tmp_path, _one_document(tiny_corpus))
    store = tmp_path / "runs.sqlite"
    part = wb("import-run", data, "-c", corpus, "--tagger", "spacy", "--store", store)
    assert part.returncode == 0, part.stderr
    summary = part.stdout.splitlines()[0]
    en2 = len(tiny_corpus.document("en-2").masked_spans)
    assert f"complete: {en2} spans imported" in summary
    assert "over the 1 of corpus's 3 documents the file names (corpus corpus:1docs" in summary
    assert "warning" not in summary

    whole = wb("import-run", data, "-c", corpus, "--whole-corpus", "--tagger", "spacy", "--store", store)
    assert whole.returncode == 0, whole.stderr
    summary = whole.stdout.splitlines()[0]
    kept = tiny_corpus.n_slots - en2
    assert f"complete: {tiny_corpus.n_slots} spans imported" in summary and "over the" not in summary
    assert f"warning: {kept} of the {tiny_corpus.n_slots} spans kept their original text" in summary
    runs = RunStore(store).runs()
    assert sorted(r.corpus_name for r in runs) == ["corpus", "corpus:1docs"]
    [whole_run] = [r for r in runs if r.corpus_name == "corpus"]
    assert kept_original(RunStore(store), whole_run.run_id) == kept


def test_the_alignment_report_quotes_no_original_text(tmp_path):
    """Folded, not covered and left-over entries, printed and stored: offsets, labels and the
    file's replacements, never a span's text."""
    corpus = make_corpus()
    data = exact_file(corpus, replace=lambda s: f"R{s.start}")
    data["d1"][0] = at("patient") + ["client"]  # folded into 'doctor-patient'
    data["d1"] = data["d1"][:3]  # Jan Kowalski (2nd), 1961, Gdańsk not covered
    data["d2"] = data["d2"][:1] + [[9, 14, "somewhere"]]  # 'Oslo' not covered; [9, 14) meets no span
    path = write(tmp_path, data)
    corpus_path = _corpus_file(tmp_path, corpus)
    out = wb("import-run", path, "-c", corpus_path, "--tagger", "spacy", "--store", tmp_path / "r.sqlite")
    assert out.returncode == 0, out.stderr
    store = RunStore(tmp_path / "r.sqlite")
    [run] = store.runs()
    stored = json.dumps(run_report(store, run.run_id, ALIGNMENT), ensure_ascii=False)
    assert "folded_into_span" in out.stdout and "not_covered" in out.stdout  # the examples are there
    assert "span #0 [17, 31) DEM" in stored  # what they show instead: number, offsets, label
    for doc in corpus.documents:
        for span in doc.spans:
            assert span.text not in out.stdout and span.text not in stored, span.text


def test_strict_imports_the_named_documents_too(tmp_path, store, tiny_corpus):
    """--strict asks every span of the imported documents to be replaced; a document the file
    leaves out is not imported (with --whole-corpus it is refused, as before)."""
    from tests.metrics.test_importers import _intact
    data = {k: v for k, v in _intact(tiny_corpus).items() if k != "en-2"}
    run = import_run(store, write(tmp_path, data), tiny_corpus, tagger=WordListTagger(), strict=True)
    assert run.corpus_name == "tiny:2docs" and "missing=error" in run.signature
    assert {p.doc_id for p in store.predictions(run.run_id)} == {"en-1", "sv-1"}
