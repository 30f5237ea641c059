"""Import as published (issue 26 item 1): entries that conflict (one span, two replacements) or
cross each other are settled by `--on-conflict first|last|error` instead of refusing the file,
and every conflict is counted and shown in the alignment report.

TAB annotates some mentions twice, with two entity types, and a system that follows the
annotation writes both: the hand-made file below replaces 'Anna Berg' by "[PERSON]" and by
"[ORG]", as a label-replacing system would. Every expected value is worked out by hand on
the one-sentence document."""

from __future__ import annotations

import json

import pytest

from tests.helpers.entry_point import wb
from tests.metrics.conftest import WordListTagger
from tests.project.test_pinned_ids import PINNED, _unversioned
from workbench.data_model import Corpus
from workbench.exchange.alignment import CROSSING, FOLDED_ENTRY, MATCHED
from workbench.exchange.entry_conflicts import CONFLICTING, CROSSING_ENTRY
from workbench.exchange.importers import align_file, import_run
from workbench.infra.errors import CorpusError
from workbench.loaders.validate import RawSpan, build_document
from workbench.store import RunStore
from workbench.store.run_reports import ALIGNMENT, run_report

TEXT = "Anna Berg met Jan Holm in Oslo."
# [0, 9) 'Anna Berg', [14, 22) 'Jan Holm', [26, 30) 'Oslo'
SPANS = [(0, 9, "PERSON"), (14, 22, "PERSON"), (26, 30, "LOC")]
TWICE = {"d1": [[0, 9, "[PERSON]"], [14, 22, "[PERSON]"], [0, 9, "[ORG]"], [26, 30, "[LOC]"]]}
# 'Anna Berg' -> "Maria"; 'Berg met Jan Holm' -> "someone": they share 'Berg'.
CROSSED = {"d1": [[0, 9, "Maria"], [5, 22, "someone"]]}


@pytest.fixture
def corpus():
    doc = build_document("hand", "d1", TEXT, "en", [RawSpan(s, e, label) for s, e, label in SPANS])
    return Corpus("hand", "tests", (doc,))


def write(tmp_path, data, name="system.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def replacements(spans):
    return [s.replacement for s in spans]


def test_first_keeps_the_replacement_listed_first_and_counts_the_conflict(corpus):
    spans, report = align_file("twice.json", TWICE, corpus)  # first is the default
    assert replacements(spans) == ["[PERSON]", "[PERSON]", "[LOC]"]
    assert report.entries[CONFLICTING] == 1 and report.entries[MATCHED] == 3 and report.conflicts == 1
    assert sum(report.entries.values()) == report.entries_read == 4  # every entry counted once
    assert report.examples[CONFLICTING] == [
        ["d1", 'entry #2 [0, 9, "[ORG]"]', '[0, 9): kept "[PERSON]" (entry #0), dropped "[ORG]"']]


def test_last_keeps_the_replacement_listed_last(corpus):
    spans, report = align_file("twice.json", TWICE, corpus, on_conflict="last")
    assert replacements(spans) == ["[ORG]", "[PERSON]", "[LOC]"]
    assert report.entries[CONFLICTING] == 1 and report.entries[MATCHED] == 3
    assert report.examples[CONFLICTING] == [
        ["d1", 'entry #0 [0, 9, "[PERSON]"]', '[0, 9): kept "[ORG]" (entry #2), dropped "[PERSON]"']]


def test_error_refuses_the_file_naming_file_document_and_span(corpus, tmp_path, store):
    path = write(tmp_path, TWICE)
    with pytest.raises(CorpusError) as err:
        import_run(store, path, corpus, tagger=WordListTagger(), on_conflict="error")
    message = str(err.value)
    assert all(part in message for part in (str(path), "document d1", "conflicting replacements for [0, 9)",
                                             '"[PERSON]"', '"[ORG]"'))
    assert store.runs() == []  # nothing written


def test_a_suppression_and_a_replacement_of_one_span_conflict_like_two_replacements(corpus):
    data = {"d1": [[0, 9], [0, 9, "[PERSON]"]]}
    assert replacements(align_file("f.json", data, corpus)[0])[0] == ""
    spans, report = align_file("f.json", data, corpus, on_conflict="last")
    assert replacements(spans)[0] == "[PERSON]"
    assert report.examples[CONFLICTING][0][2] == '[0, 9): kept "[PERSON]" (entry #1), dropped suppression'


def test_the_stored_report_records_the_policy_counts_and_examples(corpus, tmp_path, store):
    run = import_run(store, write(tmp_path, TWICE), corpus, tagger=WordListTagger(), on_conflict="last")
    body = run_report(store, run.run_id, ALIGNMENT)
    assert body["rule"] == "workbench.alignment" and body["on_conflict"] == "last"
    assert body["entries"][CONFLICTING] == 1 and body["entries"][CROSSING_ENTRY] == 0
    assert body["examples"][CONFLICTING][0][0] == "d1"
    assert [p.pseudonym for p in store.predictions(run.run_id)] == ["[ORG]", "[PERSON]", "[LOC]"]


def test_import_run_prints_the_conflicts_and_refuses_with_error(corpus, tmp_path):
    corpus_path = tmp_path / "corpus.jsonl"
    corpus_path.write_text(json.dumps({"doc_id": "d1", "text": TEXT, "lang": "en",
                                       "label": [list(s) for s in SPANS]}) + "\n", encoding="utf-8")
    path, store = write(tmp_path, TWICE), tmp_path / "runs.sqlite"
    done = wb("import-run", path, "-c", corpus_path, "--tagger", "spacy", "--on-conflict", "last", "--store", store)
    assert done.returncode == 0, done.stderr
    lines = [line.strip() for line in done.stdout.splitlines()]
    assert "1 conflicting (another replacement for the same offsets stands; dropped)" in lines
    assert ("1 conflict(s) settled by --on-conflict last: of entries that disagree, the last in file order stands"
            in lines)
    assert ('e.g. conflicting: document d1, entry #0 [0, 9, "[PERSON]"] ([0, 9): kept "[ORG]" (entry #2), '
            'dropped "[PERSON]")') in lines
    refused = wb("import-run", path, "-c", corpus_path, "--tagger", "spacy", "--on-conflict", "error",
                 "--store", tmp_path / "other.sqlite")
    assert refused.returncode == 2 and "conflicting replacements for [0, 9)" in refused.stderr


def test_the_policy_is_in_the_signature_of_a_file_with_a_conflict(corpus, tmp_path, store):
    path = write(tmp_path, TWICE)
    first = import_run(store, path, corpus, tagger=WordListTagger())
    last = import_run(store, path, corpus, tagger=WordListTagger(), on_conflict="last")
    assert first.run_id != last.run_id  # they store different replacements
    assert first.signature.split("|")[-2] == 'config={"on_conflict":"first"}'
    assert last.signature_record.config == {"on_conflict": "last"}
    assert import_run(store, path, corpus, tagger=WordListTagger()).run_id == first.run_id  # found again


@pytest.mark.parametrize("policy", ["first", "last", "error"])
def test_a_file_without_conflicts_imports_as_before_whatever_the_policy(corpus, tmp_path, store, policy):
    """The same run id and predictions as the exact rule of earlier versions (--strict)."""
    path = write(tmp_path, {"d1": [[0, 9, "Maria"], [14, 22, "Olle"], [26, 30, "Lund"]]})
    before = import_run(store, path, corpus, tagger=WordListTagger(), strict=True)
    run = import_run(store, path, corpus, tagger=WordListTagger(), on_conflict=policy)
    assert run.run_id == before.run_id and "config=" not in run.signature
    assert [p.pseudonym for p in store.predictions(run.run_id)] == ["Maria", "Olle", "Lund"]
    assert run_report(store, run.run_id, ALIGNMENT)["rule"] == "strict"  # the run stored first, found again


@pytest.mark.parametrize("policy", ["first", "last", "error"])
def test_the_pinned_import_keeps_its_run_id_under_every_policy(tiny_corpus, tmp_path, store, policy):
    """tests/project/test_pinned_ids.py's import (no conflict), with the policy given."""
    data = {d.doc_id: [[s.start, s.end, s.text[::-1]] for s in d.spans] for d in tiny_corpus.documents}
    run = import_run(store, write(tmp_path, data), tiny_corpus, tagger=WordListTagger(), name="system-x",
                     on_conflict=policy)
    assert _unversioned(run.signature) == PINNED["imported"]


def test_crossing_entries_first_keeps_the_entry_listed_first(corpus):
    spans, report = align_file("crossed.json", CROSSED, corpus)
    # "someone" is dropped: 'Jan Holm' and 'Oslo' are met by no entry and keep their text.
    assert replacements(spans) == ["Maria", "Jan Holm", "Oslo"]
    assert report.entries[CROSSING_ENTRY] == 1 and report.entries[MATCHED] == 1 and report.conflicts == 1
    assert report.examples[CROSSING_ENTRY] == [
        ["d1", 'entry #1 [5, 22, "someone"]', 'crosses [0, 9): kept "Maria" (entry #0), dropped "someone"']]


def test_crossing_entries_last_keeps_the_entry_listed_last(corpus):
    spans, report = align_file("crossed.json", CROSSED, corpus, on_conflict="last")
    # [5, 22) crosses 'Anna Berg' (its part 'Berg' replaced: "Anna someone") and covers 'Jan Holm'
    # (suppressed: the replacement goes to the first span the entry meets).
    assert replacements(spans) == ["Anna someone", "", "Oslo"]
    assert report.entries[CROSSING_ENTRY] == 1 and report.entries[CROSSING] == 1
    assert report.examples[CROSSING_ENTRY][0][1:] == [
        'entry #0 [0, 9, "Maria"]', 'crosses [5, 22): kept "someone" (entry #1), dropped "Maria"']


def test_crossing_entries_are_refused_with_error(corpus):
    with pytest.raises(CorpusError) as err:
        align_file("crossed.json", CROSSED, corpus, on_conflict="error")
    message = str(err.value)
    assert all(part in message for part in ("crossed.json", "document d1", "entry #1 [5, 22", "entry #0 [0, 9",
                                             "without either containing the other", "[5, 9)"))


def test_crossing_entries_inside_a_third_are_folded_not_a_conflict(corpus):
    """The enclosing entry replaces both whatever the policy: nothing to settle, nothing counted."""
    data = {"d1": [[0, 9, "Maria"], [5, 22, "someone"], [0, 30, "[REDACTED]"]]}
    for policy in ("first", "last", "error"):
        spans, report = align_file("f.json", data, corpus, on_conflict=policy)
        assert replacements(spans) == ["[REDACTED]", "", ""]
        assert report.conflicts == 0 and report.entries[FOLDED_ENTRY] == 2, policy


def test_a_chain_of_crossings_keeps_every_entry_that_crosses_none_kept(corpus):
    """[0, 9) stands; [5, 22) crosses it and goes; [20, 30) crossed only [5, 22), so it stands."""
    data = {"d1": [[0, 9, "Maria"], [5, 22, "someone"], [20, 30, "a town"]]}
    spans, report = align_file("f.json", data, corpus)
    # [20, 30) crosses 'Jan Holm' at its end ("Jan Ho" + "a town") and covers 'Oslo' (suppressed).
    assert replacements(spans) == ["Maria", "Jan Hoa town", ""]
    assert report.entries[CROSSING_ENTRY] == 1


def test_a_store_keeps_each_policy_apart(corpus, tmp_path):
    """Two policies on one conflicting file are two runs in one store, each with its own report."""
    store = RunStore(tmp_path / "both.sqlite")
    path = write(tmp_path, CROSSED)
    runs = {p: import_run(store, path, corpus, tagger=WordListTagger(), on_conflict=p) for p in ("first", "last")}
    assert len(store.runs()) == 2
    assert {p: run_report(store, r.run_id, ALIGNMENT)["on_conflict"] for p, r in runs.items()} == {
        "first": "first", "last": "last"}
