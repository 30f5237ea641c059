"""Reference anonymisations as runs (issue 12 item 2): original, suppress, label, label numbered
per entity; stored like imported runs, with a signature that says what they are, and never
confused with the metrics layer's Original rows."""

from __future__ import annotations

import pytest

from tests.metrics.conftest import WordListTagger, make_context
from workbench.exchange.reference import KINDS, entity_numbers, reference_run, replacements
from workbench.infra.errors import WorkbenchError
from workbench.metrics import compute_metrics, is_original, metric_frame
from workbench.store.run_reports import REFERENCE, run_report


def _run(store, corpus, kind, numbered=False):
    return reference_run(store, corpus, kind, numbered=numbered, tagger=WordListTagger())


def test_original_suppress_and_label_replacements(store, tiny_corpus):
    for kind in KINDS:
        run = _run(store, tiny_corpus, kind)
        got = {(p.doc_id, p.span_index): p.pseudonym for p in store.predictions(run.run_id)}
        assert len(got) == tiny_corpus.n_slots and run.status == "complete" and run.source == "reference"
        for doc in tiny_corpus.documents:
            for i, span in enumerate(doc.spans):
                expected = {"original": span.text, "suppress": "", "label": span.label}[kind]
                assert got[(doc.doc_id, i)] == expected
        assert run_report(store, run.run_id, REFERENCE)["spans"] == tiny_corpus.n_slots


def test_numbered_labels_follow_the_corpus_entities_per_document(store, tiny_corpus):
    run = _run(store, tiny_corpus, "label", numbered=True)
    got = {(p.doc_id, p.span_index): p.pseudonym for p in store.predictions(run.run_id)}
    en1 = [got[("en-1", i)] for i in range(10)]
    # Anna Berg twice (one entity), then Olle: PERSON_1, PERSON_1, PERSON_2; Oslo twice and Paris.
    assert en1 == ["PERSON_1", "LOC_1", "DATETIME_1", "LOC_2", "DATETIME_2", "PERSON_1", "ORG_1", "PERSON_2",
                   "LOC_1", "DEM_1"]
    assert got[("en-2", 0)] == "PERSON_1" and got[("en-2", 3)] == "PERSON_3"  # numbering restarts per document
    for doc in tiny_corpus.documents:  # same entity <=> same number within a label
        numbers = entity_numbers(doc)
        for i, a in enumerate(doc.spans):
            for j, b in enumerate(doc.spans):
                if a.label == b.label:
                    assert (numbers[i] == numbers[j]) == (a.entity_id == b.entity_id)


def test_signatures_say_what_the_runs_are_and_asking_again_reuses_the_run(store, tiny_corpus):
    runs = {kind: _run(store, tiny_corpus, kind) for kind in KINDS}
    numbered = _run(store, tiny_corpus, "label", numbered=True)
    assert len({r.run_id for r in [*runs.values(), numbered]}) == 4
    for kind, run in runs.items():
        assert f"gen={kind}|model=reference|mode=-" in run.signature and "source=reference" in run.signature
        assert _run(store, tiny_corpus, kind).run_id == run.run_id
    assert numbered.generator == "label-numbered" and 'config={"numbered":true}' in numbered.signature
    assert len(store.runs()) == 4


def test_numbered_applies_to_labels_only(store, tiny_corpus):
    with pytest.raises(WorkbenchError, match="--numbered applies to the label reference only"):
        _run(store, tiny_corpus, "suppress", numbered=True)
    # which kinds a command's --numbered goes to is read from the kinds' classes (Label.numbered)
    from workbench.exchange.reference import KINDS, numbered_for
    assert numbered_for(("original", "label"), True) == {"original": False, "label": True}
    assert numbered_for(("original",), True) == {"original": True}  # refused by generator_name, as above
    assert not any(numbered_for(KINDS, False).values())
    with pytest.raises(WorkbenchError, match="unknown reference kind"):
        replacements(tiny_corpus, "blank")
    assert store.runs() == []


def test_a_stored_original_run_does_not_collide_with_the_original_rows(store, tiny_corpus):
    from workbench.reports.labels import mode_label, system_label
    run = _run(store, tiny_corpus, "original")
    table = compute_metrics(metric_frame(store, [run.run_id]), make_context(),
                            families=("diversity", "overlap", "entities"), per_language=False)  # over all 21 spans
    pseudo = [i for i, row in table.iterrows() if is_original(row)]
    assert pseudo == ["original:tiny"] and run.run_id in table.index and not is_original(table.loc[run.run_id])
    row, orig = table.loc[run.run_id], table.loc["original:tiny"]
    assert system_label(orig) == "Original" and mode_label(orig) == ""
    assert system_label(row) == "original (reference)" and mode_label(row) == "-"
    assert row["source"] == "reference" and orig["source"] == "original"
    # The same forms as the Original rows: the same Table 2 figures.
    for name in ("form_freq_avg", "unique_forms", "unique_ratio", "consistency"):
        assert row[name] == orig[name]
    assert row["overlap_absolute"] == pytest.approx(1 - 3 / 21)  # the three year spans are numerals


def test_the_cli_stores_reference_runs(tmp_path):
    from tests.helpers.entry_point import wb
    store = tmp_path / "s.sqlite"
    result = wb("reference", "-c", "pgv-pii-en", "--kind", "suppress", "--kind", "label", "--numbered",
                "--tagger", "spacy", "--store", store)
    assert result.returncode == 0, result.stderr
    assert "suppress over 720 spans" in result.stdout and "label-numbered over 720 spans" in result.stdout
    bad = wb("reference", "-c", "pgv-pii-en", "--kind", "original", "--numbered", "--store", tmp_path / "x")
    assert bad.returncode == 2 and "label reference only" in bad.stderr and not (tmp_path / "x").exists()
    listed = wb("run-report", result.stdout.split()[1], "--store", store)
    assert listed.returncode == 0 and '"suppressed": 720' in listed.stdout


def test_a_suppressed_run_exports_shows_and_imports_back_as_suppression(store, tiny_corpus, tmp_path):
    import json

    from workbench.exchange.exporters import export_run
    from workbench.exchange.importers import import_run
    from workbench.infra.errors import CorpusError
    from workbench.views.show import show_run
    run = _run(store, tiny_corpus, "suppress")
    intact = json.loads(export_run(store, run.run_id, "intact", tmp_path / "i.json").read_text(encoding="utf-8"))
    assert {e[2] for entries in intact.values() for e in entries} == {""}
    tab = json.loads(export_run(store, run.run_id, "tab", tmp_path / "t.json").read_text(encoding="utf-8"))
    assert sum(len(v) for v in tab.values()) == tiny_corpus.n_slots  # every span masked
    lines = [json.loads(x) for x in export_run(store, run.run_id, "doccano", tmp_path / "d.jsonl").read_text(
        encoding="utf-8").splitlines()]
    en2 = next(x for x in lines if x["doc_id"] == "en-2")
    assert en2["label"] == [] and "Kowalski" not in en2["text"]  # nothing left to label
    shown = list(show_run(store, run.run_id, "en-2", spans_only=True))
    assert "'Jan Kowalski'" in shown[1] and shown[1].endswith("→ ''  (suppressed)")
    again = import_run(store, tmp_path / "i.json", tiny_corpus, tagger=WordListTagger(), name="back")
    assert {p.pseudonym for p in store.predictions(again.run_id)} == {""}
    with pytest.raises(CorpusError, match="non-empty string"):
        import_run(store, tmp_path / "i.json", tiny_corpus, tagger=WordListTagger(), strict=True)


def test_the_dashboard_marks_a_suppressed_span_visibly(tiny_corpus):
    from workbench.dashboard.render import STYLE, mark_text, replaced_marks
    from workbench.text.replace import pseudonymise
    doc = tiny_corpus.document("en-2")
    text, placed = pseudonymise(doc, {0: "", 1: "Ola Nordmann"})
    marks = replaced_marks(placed, {0: "PERSON", 1: "PERSON"})
    assert marks[0][2] == "wb-rep wb-suppressed" and "suppressed: Jan Kowalski" in marks[0][3]
    assert marks[1][2] == "wb-rep" and "original: Eva Nowak" in marks[1][3]
    html = mark_text(text, marks)
    assert '<mark class="wb-rep wb-suppressed" title="span 0 · PERSON · suppressed: Jan Kowalski"></mark>' in html
    assert "mark.wb-suppressed::before" in STYLE  # the empty mark is drawn as ∅
