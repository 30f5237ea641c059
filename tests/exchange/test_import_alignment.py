"""Other systems' files as they come (issue 12 item 1): the alignment rule of workbench/exchange/alignment.py
on tiny files, the report stored with the run, `--strict`, masking files, and a real INTACT file.

The corpus mimics TAB: 'doctor-patient' is one span because the loader folded the nested
mention 'patient' into it (drop_nested), as tab-test holds [3402, 3416) 'doctor-patient'
where INTACT's file also replaces [3409, 3416)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.metrics.conftest import WordListTagger
from workbench.data_model import Corpus
from workbench.exchange.alignment import (
    COVERING,
    CROSSING,
    DEDUPLICATED,
    FOLDED_ENTRY,
    FOLDED_SPAN,
    LEFT_OVER,
    MATCHED,
    MERGED,
    NOT_COVERED,
    SPLICED,
    TRIMMED,
    WHOLE,
)
from workbench.exchange.importers import align_file, import_run
from workbench.infra.errors import CorpusError
from workbench.loaders.validate import RawSpan, build_document
from workbench.store.run_reports import ALIGNMENT, run_report
from workbench.text.replace import pseudonymise

TEXT = ("The applicant, a doctor-patient of Dr Jan Kowalski, lives in Warsaw. "
        "Jan Kowalski was born in 1961 in Gdańsk.")
DATA = Path(__file__).parent / "data"


def _span(text, mention, label, nth=0):
    start = -1
    for _ in range(nth + 1):
        start = text.index(mention, start + 1)
    return RawSpan(start, start + len(mention), label)


def make_corpus():
    raw = [_span(TEXT, "doctor-patient", "DEM"), _span(TEXT, "patient", "DEM"),  # nested: folded by the loader
           _span(TEXT, "Jan Kowalski", "PERSON"), _span(TEXT, "Warsaw", "LOC"),
           _span(TEXT, "Jan Kowalski", "PERSON", 1), _span(TEXT, "1961", "DATETIME"), _span(TEXT, "Gdańsk", "LOC")]
    doc = build_document("tiny", "d1", TEXT, "en", raw, drop_nested=True)
    other = build_document("tiny", "d2", "Anna Berg lives in Oslo.", "en",
                           [RawSpan(0, 9, "PERSON"), RawSpan(19, 23, "LOC")])
    return Corpus("align", "tests", (doc, other))


@pytest.fixture
def corpus():
    return make_corpus()


def at(mention, nth=0, shift=(0, 0)):
    span = _span(TEXT, mention, "x", nth)
    return [span.start + shift[0], span.end + shift[1]]


def exact_file(corpus, replace=lambda s: s.text.upper()):
    return {d.doc_id: [[s.start, s.end, replace(s)] for s in d.spans] for d in corpus.documents}


def write(tmp_path, data, name="ext.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def picks(spans):
    return {(s.doc_id, s.span_index): s.replacement for s in spans}


def test_the_corpus_folded_the_nested_mention(corpus):
    assert [s.text for s in corpus.document("d1").spans][:2] == ["doctor-patient", "Jan Kowalski"]


def test_an_exact_file_aligns_to_itself_and_matches_everything(corpus):
    spans, report = align_file("f.json", exact_file(corpus), corpus)
    assert all(p == corpus.document(d).spans[i].text.upper() for (d, i), p in picks(spans).items())
    assert report.entries[MATCHED] == 8 and report.spans[WHOLE] == 8 and sum(report.entries.values()) == 8


def test_nested_entry_alone_is_folded_into_its_corpus_span_and_spliced(corpus):
    data = exact_file(corpus)
    data["d1"][0] = at("patient") + ["client"]  # only the nested mention, as a file built on TAB's mentions has it
    spans, report = align_file("f.json", data, corpus)
    assert picks(spans)[("d1", 0)] == "doctor-client"  # the other system's text: 'doctor-' stays
    assert report.entries[FOLDED_SPAN] == 1 and report.spans[SPLICED] == 1
    assert next(s for s in spans if s.span_index == 0 and s.doc_id == "d1").note.endswith("kept)")


def test_nested_entry_beside_its_enclosing_entry_is_folded_into_it(corpus):
    data = exact_file(corpus)
    data["d1"].append(at("patient") + ["Former medical case"])  # INTACT lists both, as for tab-test 001-61253
    spans, report = align_file("f.json", data, corpus)
    assert picks(spans)[("d1", 0)] == "DOCTOR-PATIENT"
    assert report.entries[FOLDED_ENTRY] == 1 and report.entries[MATCHED] == 8
    assert "inside entry #0" in report.body()["examples"][FOLDED_ENTRY][0][2]


def test_identical_repeated_entries_are_deduplicated(corpus):
    data = exact_file(corpus)
    data["d1"] += [list(data["d1"][2]), list(data["d1"][2])]
    spans, report = align_file("f.json", data, corpus)
    assert len(spans) == corpus.n_slots and report.entries[DEDUPLICATED] == 2
    assert picks(spans) == picks(align_file("f.json", exact_file(corpus), corpus)[0])


@pytest.mark.parametrize("blank", ["", "   ", "\t\n", "\u00a0", None])
def test_an_empty_or_white_space_replacement_is_suppression(corpus, blank):
    data = exact_file(corpus)
    data["d1"][1][2] = blank
    spans, report = align_file("f.json", data, corpus)
    assert picks(spans)[("d1", 1)] == "" and report.suppressing == 1 and report.entries[MATCHED] == 8


def test_descending_order_gives_the_same_run(corpus):
    ascending = exact_file(corpus)
    descending = {k: list(reversed(v)) for k, v in reversed(list(ascending.items()))}
    assert picks(align_file("a.json", ascending, corpus)[0]) == picks(align_file("d.json", descending, corpus)[0])


def test_conflicting_replacements_for_one_span_are_refused_naming_file_document_and_entries(corpus, tmp_path,
                                                                                            store):
    """With on_conflict="error"; the default policy is tests/exchange/test_import_conflicts.py's."""
    data = exact_file(corpus)
    data["d1"].append([*data["d1"][3][:2], "Kraków"])
    path = write(tmp_path, data)
    with pytest.raises(CorpusError) as err:
        import_run(store, path, corpus, tagger=WordListTagger(), on_conflict="error")
    message = str(err.value)
    assert str(path) in message and "document d1" in message and "conflicting replacements" in message
    assert "entry #3" in message and "entry #6" in message and "Kraków" in message
    assert store.runs() == [] and store.corpora() == []  # nothing written


def test_a_suppression_and_a_replacement_for_one_span_conflict_too(corpus):
    data = exact_file(corpus)
    data["d1"].append([*data["d1"][3][:2], ""])
    with pytest.raises(CorpusError, match="conflicting replacements"):
        align_file("f.json", data, corpus, on_conflict="error")


def test_entries_crossing_each_other_are_ambiguous_unless_both_suppress(corpus):
    data = exact_file(corpus)
    data["d1"] = [at("Jan Kowalski", shift=(0, -4)) + ["A"], at("Jan Kowalski", shift=(4, 0)) + ["B"]]
    with pytest.raises(CorpusError, match="without either containing the other"):
        align_file("f.json", data, corpus, on_conflict="error")
    data["d1"] = [at("Jan Kowalski", shift=(0, -4)) + [""], at("Jan Kowalski", shift=(4, 0))]
    spans, report = align_file("f.json", data, corpus)
    # Their union is the span itself: matched (with d2's two exact entries).
    assert picks(spans)[("d1", 1)] == "" and report.entries[MERGED] == 1 and report.entries[MATCHED] == 3


def test_entry_crossing_a_span_boundary_replaces_the_part_inside(corpus):
    data = {"d1": [at("Dr Jan", shift=(0, 0)) + ["the physician"]]}  # 'Dr ' lies outside the span
    spans, report = align_file("f.json", data, corpus)
    assert picks(spans)[("d1", 1)] == "the physician Kowalski"
    assert report.entries[CROSSING] == 1 and report.outside_chars == 2  # 'Dr' stays in the text


def test_entry_covering_two_spans_gives_its_replacement_to_the_first_and_suppresses_the_other(corpus):
    first, second = corpus.document("d2").spans
    data = {"d2": [[first.start, second.end, "someone somewhere"]]}
    spans, report = align_file("f.json", data, corpus)
    assert picks(spans)[("d2", 0)] == "someone somewhere" and picks(spans)[("d2", 1)] == ""
    assert report.entries[COVERING] == 1 and report.outside_chars == len("livesin")


def test_entry_with_white_space_beyond_the_trimmed_span_still_matches(corpus):
    data = {"d1": [at("Warsaw", shift=(-1, 0)) + ["Lublin"]]}
    spans, report = align_file("f.json", data, corpus)
    assert picks(spans)[("d1", 2)] == "Lublin" and report.entries[TRIMMED] == 1 and report.outside_chars == 0


def test_entries_outside_every_span_and_unknown_documents_are_left_over(corpus):
    data = exact_file(corpus)
    data["d1"].append([0, 3, "A"])
    data["elsewhere"] = [[0, 4, "x"]]
    spans, report = align_file("f.json", data, corpus)
    body = report.body()
    assert report.entries[LEFT_OVER] == 1 and body["documents_not_in_corpus"] == ["elsewhere"]
    assert len(spans) == corpus.n_slots


def test_a_file_listing_none_of_the_corpus_documents_is_refused(corpus):
    with pytest.raises(CorpusError, match="no such document in corpus align"):
        align_file("f.json", {"x": [[0, 1, "y"]]}, corpus)


def test_spans_no_entry_meets_keep_their_text_or_stop_with_missing_error(corpus, tmp_path, store):
    data = exact_file(corpus)
    del data["d2"]
    data["d1"] = data["d1"][1:]
    spans, report = align_file("f.json", data, corpus)
    assert picks(spans)[("d1", 0)] == "doctor-patient" and picks(spans)[("d2", 0)] == "Anna Berg"
    assert "missing=original" in import_run(store, write(tmp_path, data), corpus, tagger=WordListTagger()).signature
    assert report.spans[NOT_COVERED] == 3 and report.body()["documents_not_in_file"] == ["d2"]
    with pytest.raises(CorpusError, match=r"no entry of the file meets this span.*--missing original") as err:
        align_file("f.json", data, corpus, missing="error")
    assert "document d1" in str(err.value) and "'doctor-patient'" in str(err.value)


@pytest.mark.parametrize("entry, message", [
    ([5, 2, "x"], "end is not after start"),
    ([0, 10_000, "x"], "outside the text"),
    ([0, "3", "x"], "offsets must be integers"),
    ([0, 3, 7], "must be a string"),
    ([0], "expected [start, end, replacement] or [start, end]"),
    ([0, 3, "\u200b"], "invisible"),
])
def test_malformed_entries_are_refused_naming_the_entry(corpus, entry, message):
    data = exact_file(corpus)
    data["d2"].append(entry)
    with pytest.raises(CorpusError, match=re.escape(message)) as err:
        align_file("f.json", data, corpus)
    assert "document d2" in str(err.value) and "entry #2" in str(err.value)


def test_a_masking_file_imports_as_suppression(corpus, tmp_path, store):
    data = {d.doc_id: [[s.start, s.end] for s in d.spans] for d in corpus.documents}
    data["d1"].append(at("Jan Kowalski", shift=(4, 6)))  # overlapping masks: their union is masked
    run = import_run(store, write(tmp_path, data), corpus, tagger=WordListTagger())
    assert {p.pseudonym for p in store.predictions(run.run_id)} == {""}
    body = run_report(store, run.run_id, ALIGNMENT)
    assert body["masking_file"] and body["suppressing_entries"] == 9 and body["entries"][MERGED] == 1


def test_the_report_is_stored_with_the_run_and_deleted_with_it(corpus, tmp_path, store):
    data = exact_file(corpus)
    data["d1"] = list(reversed(data["d1"])) + [at("patient") + ["client"], list(data["d1"][2])]
    data["d1"][0][2] = ""
    run = import_run(store, write(tmp_path, data), corpus, tagger=WordListTagger(), name="other")
    body = run_report(store, run.run_id, ALIGNMENT)
    assert body["rule"] == "workbench.alignment" and body["entries_read"] == 10
    assert body["entries"][MATCHED] == 8 and body["entries"][FOLDED_ENTRY] == 1 and body["entries"][DEDUPLICATED] == 1
    assert body["spans"][WHOLE] == 8 and body["suppressing_entries"] == 1
    assert run.options["strict"] is False and "missing=error" in run.signature  # no span was left uncovered
    store.delete_run(run.run_id)
    assert run_report(store, run.run_id, ALIGNMENT) is None


@pytest.mark.parametrize("breaks, message", [
    (lambda d: d["d1"].append(at("patient") + ["client"]), "no span of the corpus at"),  # nested
    (lambda d: d["d1"].append(list(d["d1"][0])), "replaced twice"),  # duplicate
    (lambda d: d["d1"][0].__setitem__(2, ""), "non-empty string"),  # empty
    (lambda d: d["d1"][0].__setitem__(2, "  "), "non-empty string"),  # white space
    (lambda d: d["d1"][0].pop(), "expected [start, end, replacement]"),  # a masking entry
])
def test_strict_keeps_the_old_rule(corpus, tmp_path, store, breaks, message):
    data = exact_file(corpus)
    breaks(data)
    path = write(tmp_path, data)
    with pytest.raises(CorpusError, match=re.escape(message)):
        import_run(store, path, corpus, tagger=WordListTagger(), strict=True)
    assert store.runs() == []
    run = import_run(store, path, corpus, tagger=WordListTagger())  # the same file aligns
    assert run.status == "complete"


def test_strict_and_aligned_imports_of_an_exact_file_store_the_same_replacements(corpus, tmp_path, store):
    path = write(tmp_path, {k: list(reversed(v)) for k, v in exact_file(corpus).items()})
    strict = import_run(store, path, corpus, tagger=WordListTagger(), strict=True)
    aligned = import_run(store, path, corpus, tagger=WordListTagger())
    # The same replacements, so the same signature and run (an earlier import is found again).
    assert strict.run_id == aligned.run_id and "missing=error" in aligned.signature
    assert run_report(store, strict.run_id, ALIGNMENT)["rule"] == "strict"


# Entries strictly inside spans (any number per span, any order, some suppressing): the
# aligned run's document is exactly the file's entries spliced into the original text.
@given(st.data())
def test_aligned_document_equals_the_other_systems_text(data):
    corpus = make_corpus()
    doc = corpus.document("d1")
    entries = []
    for span in doc.spans:
        cuts = sorted(data.draw(st.sets(st.integers(span.start, span.end), max_size=4)))
        for a, b in zip(cuts[::2], cuts[1::2]):
            if b > a:
                entries.append([a, b, data.draw(st.sampled_from(["", "X", "Yy z"]))])
    entries = data.draw(st.permutations(entries))
    spans, report = align_file("f.json", {"d1": entries}, corpus)
    assert sum(report.entries.values()) == report.entries_read == len(entries)  # every entry counted once
    expected, cursor = [], 0
    for a, b, r in sorted(entries):
        expected += [doc.text[cursor:a], r]
        cursor = b
    expected.append(doc.text[cursor:])
    mine = {s.span_index: s.replacement for s in spans if s.doc_id == "d1" and not s.missing}
    text, _ = pseudonymise(doc, mine)
    # A span left with only white space is suppressed (rule 5): compare with white space collapsed.
    assert " ".join(text.split()) == " ".join("".join(expected).split())


def test_a_real_intact_file_imports_without_editing(tmp_path, store):
    """TAE's TAB_test_Manual_INTACT.json (MIT; two of its 127 documents, unedited: descending
    offsets, and [3409, 3416) nested in [3402, 3416) of 001-61253) against tab-test."""
    from workbench.loaders import shipped_corpus
    from workbench.loaders.subset import select_documents
    corpus = select_documents(shipped_corpus("tab-test"), keep="001-61807,001-61253")
    path = DATA / "intact_tab_sample.json"
    with pytest.raises(CorpusError, match=r"document 001-61253, span entry #20 \[3409, 3416"):
        import_run(store, path, corpus, tagger=WordListTagger(), strict=True)
    run = import_run(store, path, corpus, tagger=WordListTagger(), name="intact")
    body = run_report(store, run.run_id, ALIGNMENT)
    assert body["entries"][MATCHED] == 103 and body["entries"][FOLDED_ENTRY] == 1
    assert body["spans"][WHOLE] == corpus.n_slots == 103
    pseudonyms = {(p.doc_id, p.span_index): p.pseudonym for p in store.predictions(run.run_id)}
    doc = corpus.document("001-61253")
    index = next(i for i, s in enumerate(doc.spans) if (s.start, s.end) == (3402, 3416))
    assert pseudonyms[("001-61253", index)] == "DEM_1"


def test_the_cli_prints_the_report_and_strict_refuses(tmp_path):
    from tests.helpers.entry_point import wb
    from workbench.loaders import shipped_corpus
    corpus = shipped_corpus("pgv-pii-en")
    data = {d.doc_id: [[s.start, s.end, s.text[::-1]] for s in reversed(d.spans)] for d in corpus.documents}
    first = corpus.documents[0].doc_id
    data[first].append(list(data[first][0]))
    data[first][1][2] = ""
    path = write(tmp_path, data)
    store = tmp_path / "s.sqlite"
    strict = wb("import-run", path, "-c", "pgv-pii-en", "--strict", "--tagger", "spacy", "--store", store)
    assert strict.returncode == 2 and "non-empty string" in strict.stderr and "Traceback" not in strict.stderr
    result = wb("import-run", path, "-c", "pgv-pii-en", "--tagger", "spacy", "--store", store)
    assert result.returncode == 0, result.stderr
    assert re.search(r"\b1 deduplicated", result.stdout) and "1 of them suppression" in result.stdout
    assert f"{corpus.n_slots} replaced whole" in result.stdout
    run_id = result.stdout.split()[1]
    shown = wb("run-report", run_id[:8], "--store", store)
    assert shown.returncode == 0 and shown.stdout.splitlines() == result.stdout.splitlines()[2:]


def test_a_real_masking_file_of_a_detector_imports_and_every_entry_is_accounted_for(store):
    """TAE's TAB_test_Presidio.json (MIT; two documents, unedited): Presidio's own spans, which meet
    tab-test's partly, nest ([88, 109) in [88, 123)) and fall outside them."""
    from workbench.loaders import shipped_corpus
    from workbench.loaders.subset import select_documents
    corpus = select_documents(shipped_corpus("tab-test"), keep="001-61807,001-61253")
    data = json.loads((DATA / "presidio_tab_sample.json").read_text(encoding="utf-8"))
    spans, report = align_file("presidio_tab_sample.json", data, corpus)
    body = report.body()
    assert body["masking_file"] and body["suppressing_entries"] == body["entries_read"] == 68
    assert sum(body["entries"].values()) == body["entries_read"]  # every entry counted once
    assert sum(body["spans"].values()) == corpus.n_slots == len(spans)
    for kind in (MATCHED, FOLDED_SPAN, FOLDED_ENTRY, COVERING, CROSSING, LEFT_OVER):
        assert body["entries"][kind] > 0, kind  # a real detector's file exercises every rule
    got = picks(spans)
    for doc in corpus.documents:
        masked = set()
        for start, end in data[doc.doc_id]:
            masked.update(range(start, end))
        for i, span in enumerate(doc.spans):
            # Brute force: the span's characters no entry masks; none left (or only space) -> suppressed.
            kept = "".join(c for p, c in zip(range(span.start, span.end), span.text) if p not in masked)
            assert got[(doc.doc_id, i)] == (kept if kept.strip() else ""), (doc.doc_id, i)
