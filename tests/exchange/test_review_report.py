"""What a review changed, in the report (issue 41 item 3): export → three rows edited → import →
the report's review section lists exactly those three changes, by label and by the error tag
the parent's pseudonym has; the metric differences parent → revision are the table's own rows.
Also: formula-like cells survive the CSV round trip, and a review of an imported run keeps
the detection recall it inherits."""

from __future__ import annotations

import pytest

from tests.exchange.test_review import EDITS, _edited, _parent, _read, _write
from tests.metrics.conftest import WordListTagger, make_context
from workbench.annotation.storage import Annotation, AnnotationStore
from workbench.exchange.review_export import export_review
from workbench.exchange.review_import import import_review

# Two of the three edited spans tagged on the parent by people (a judge's tag is no vote).
TAGS = {("en-1", 8): "OVERLAP", ("en-2", 1): "OVERLAP"}


def test_the_report_lists_exactly_the_three_changes_by_label_and_tag(tmp_path, tiny_corpus):
    from workbench.metrics import compute_metrics, metric_frame
    from workbench.reports.review_changes import review_comparison, review_markdown

    _, store, parent = _parent(tmp_path, tiny_corpus)
    notes = AnnotationStore(store)
    notes.save_many([Annotation(parent, d, s, who, tag, "", "api")
                     for (d, s), tag in TAGS.items() for who in ("ann1", "ann2")]
                    + [Annotation(parent, "sv-1", 3, "judge:stand-in", "GRAMMAR", "", "judge"),
                       Annotation(parent, "en-1", 0, "ann1", "NO_ERROR", "", "api")])  # not revised
    out = export_review(store, parent, tmp_path / "run.csv").csv
    _write(out, _edited(_read(out)))
    reviewed = import_review(store, out, "anna").run_id

    # What build_report hands the report (report.md's "Review: parent and revision", review_*.csv);
    # the metric table of one cheap family: the whole report is minutes of other families.
    table = compute_metrics(metric_frame(store, [parent, reviewed]), make_context(), families=("overlap",))
    comparison = review_comparison(store, table)
    changes = comparison.changes
    assert changes[["label", "tag", "changed"]].values.tolist() == [
        ["LOC", "OVERLAP", 1], ["PERSON", "OVERLAP", 1], ["other", "not annotated", 1]]
    assert set(changes["reviewer"]) == {"anna"} and changes["changed"].sum() == len(EDITS) == 3

    # The metric differences are the table's rows (a row per language of the tiny corpus),
    # revision − parent: the two exact copies of their original (Oslo, Eva Nowak, English) revised away.
    metrics = comparison.metrics.set_index(["lang", "metric"])
    row = metrics.loc[("en", "overlap_absolute")]
    assert row["parent_value"] == table.at[f"{parent}@en", "overlap_absolute"] == pytest.approx(2 / 14)
    assert row["revision_value"] == table.at[f"{reviewed}@en", "overlap_absolute"] == 0
    assert row["difference"] == pytest.approx(-2 / 14)
    assert metrics.loc[("sv", "overlap_absolute"), "difference"] == 0  # lärare → snickare: no copy either way

    section = review_markdown(comparison)
    assert "| hand maskL (reviewed) | hand maskL | anna | LOC | OVERLAP | 1 |" in section
    assert "| anna | other | not annotated | 1 |" in section and "| anna | PERSON | OVERLAP | 1 |" in section
    assert "| hand maskL (reviewed) | en | overlap_absolute | 0.143 | 0.000 | -0.143 |" in section

    # Without its parent in the report: the changes, and why no metric differences; without a
    # reviewed run: no comparison (report.md then has no section).
    alone = review_comparison(store, table.loc[[f"{reviewed}@en", f"{reviewed}@sv"]])
    assert alone.changes.drop(columns="parent").equals(changes.drop(columns="parent")) and alone.metrics.empty
    assert set(alone.changes["parent"]) == {parent[:8]}  # named by its short id: not in the report
    assert "its parent run is not in this report" in review_markdown(alone)
    assert review_comparison(store, table.loc[[f"{parent}@en", f"{parent}@sv"]]) is None
    store.close()


def test_formula_cells_are_written_as_text_and_read_back_unchanged(tmp_path, tiny_corpus):
    from tests.metrics.conftest import RUN_A, add_run
    from workbench.store import RunStore

    store = RunStore(tmp_path / "runs.sqlite")
    risky = {**RUN_A, "en-2": ["=HYPERLINK(\"x\")", "+46 70", "-Krakow", "@K"]}
    parent = add_run(store, tiny_corpus, risky)
    out = export_review(store, parent, tmp_path / "run.csv").csv
    rows = _read(out)
    en2 = {int(r["span"]): r for r in rows if r["doc_id"] == "en-2"}
    assert [en2[i]["pseudonym"] for i in range(4)] == ["'=HYPERLINK(\"x\")", "'+46 70", "'-Krakow", "'@K"]
    assert all(not r[c].startswith(("=", "+", "-", "@")) for r in rows for c in r)
    en2[2]["revised"] = "'-Kraków"  # as a reviewer writes it so that the spreadsheet keeps it as text
    en2[3]["revised"] = "'Neil"  # an apostrophe before a letter is text of its own
    _write(out, rows)
    reviewed = import_review(store, out, "anna")  # the escaped originals and pseudonyms match the run
    preds = {p.span_index: p.pseudonym for p in store.predictions(reviewed.run_id) if p.doc_id == "en-2"}
    assert preds == {0: "=HYPERLINK(\"x\")", 1: "+46 70", 2: "-Kraków", 3: "'Neil"}
    store.close()


def test_a_review_of_an_imported_run_keeps_its_detection_recall(tmp_path, store, tiny_corpus):
    from tests.exchange.test_import_alignment import write
    from tests.metrics.test_detection import import_file
    from workbench.exchange.importers import import_run
    from workbench.metrics import family, metric_frame

    parent = import_run(store, write(tmp_path, import_file(tiny_corpus)), tiny_corpus, tagger=WordListTagger())
    out = export_review(store, parent.run_id, tmp_path / "run.csv").csv
    rows = _read(out)
    for r in rows:  # the two spans the import left out of en-1: Anna Berg (#5) and teacher (#9)
        if (r["doc_id"], r["span"]) in {("en-1", "5"), ("en-1", "9")}:
            r["revised"] = {"5": "Eva Lund", "9": "baker"}[r["span"]]
    _write(out, rows)
    reviewed = import_review(store, out, "anna").run_id
    frame = metric_frame(store, [parent.run_id, reviewed])
    table = family("detection").compute(frame, make_context())
    assert table.at[parent.run_id, "recall_mention"] == pytest.approx(16 / 21)  # tests/metrics/test_detection.py
    assert table.at[reviewed, "recall_mention"] == pytest.approx(18 / 21)
    assert table.at[reviewed, "recall_by_construction"] == 0.0
