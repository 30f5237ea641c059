"""The review loop (issue 41 item 3): `workbench review export` → a person edits `revised` → `workbench
review import` stores a new run with only those spans changed, naming its parent and reviewer;
bad rows are refused with file, row, document and span named, and nothing is stored."""

from __future__ import annotations

import csv
import os
import re

import pytest

from tests.helpers.entry_point import wb
from tests.metrics.conftest import RUN_A, UPOS_A, add_run, make_context
from workbench.exchange.review_export import COLUMNS, documents_path, export_review
from workbench.exchange.review_import import import_review
from workbench.infra.errors import CorpusError, WorkbenchError
from workbench.prediction_notes import NOTE_REVIEWED
from workbench.store import RunStore
from workbench.store.run_reports import REVIEW, run_report

MARKED = re.compile(r"(?<!\\)\[((?:\\.|[^\\\]])*)\]\{#(\d+) ([^}]*)\}")
# (doc_id, span) -> the reviewer's pseudonym: "Oslo" and "Eva Nowak" kept their original text in
# RUN_A; "lärare" → "snickare" is a reviewer's taste. Two more rows are touched without changing anything.
EDITS = {("en-1", 8): "Bergen", ("en-2", 1): "Ewa Lis", ("sv-1", 3): "snickare"}


def _read(path):
    with open(path, encoding="utf-8-sig", newline="") as f:
        return list(csv.DictReader(f))


def _write(path, rows):
    with open(path, "w", encoding="utf-8-sig", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(rows)


def _edited(rows, edits=EDITS):
    out = []
    for row in rows:
        row = dict(row)
        key = (row["doc_id"], int(row["span"]))
        if key in edits:
            row["revised"] = edits[key]
        elif key == ("en-1", 0):
            row["revised"] = row["pseudonym"]  # the pseudonym itself: no change
        elif key == ("en-1", 1):
            row["revised"] = "   "  # blank: no change
        out.append(row)
    return out


def _parent(tmp_path, tiny_corpus):
    path = tmp_path / "runs.sqlite"
    store = RunStore(path)
    run_id = add_run(store, tiny_corpus, RUN_A, upos=UPOS_A)
    return path, store, run_id


def test_round_trip_changes_exactly_the_revised_spans(tmp_path, tiny_corpus):
    from workbench.metrics import compute_metrics, metric_frame
    from workbench.metrics.run_names import run_names
    from workbench.reports.run_legend import legend

    path, store, parent = _parent(tmp_path, tiny_corpus)
    out = tmp_path / "review" / "run.csv"
    exported = wb("review", "export", parent[:8], "-o", out, store=path)
    assert exported.returncode == 0, exported.stderr
    assert "personal data" in exported.stderr and f"wrote {tiny_corpus.n_slots} spans" in exported.stdout
    assert sorted(p.name for p in out.parent.iterdir()) == ["run.csv", "run.documents.txt"]  # no temporary left

    rows = _read(out)
    parent_preds = {(p.doc_id, p.span_index): p for p in store.predictions(parent)}
    assert [(r["doc_id"], int(r["span"])) for r in rows] == list(parent_preds)  # every span, in order
    spans = {(d.doc_id, i): s for d in tiny_corpus.documents for i, s in enumerate(d.spans)}
    for r in rows:
        key = (r["doc_id"], int(r["span"]))
        assert (r["run_id"], r["revised"]) == (parent, "")
        assert (r["original"], int(r["start"]), int(r["end"]), r["label"]) == (
            spans[key].text, spans[key].start, spans[key].end, spans[key].label)
        assert r["pseudonym"] == parent_preds[key].pseudonym
        assert f"[{r['pseudonym']}]{{#{r['span']} {r['label']}}}" in r["context"]
    # The documents: each pseudonym marked with its row's span number, in text order.
    documents = documents_path(out).read_text(encoding="utf-8")
    block = documents.split("# en-2\n", 1)[1].split("\n# ", 1)[0]
    assert [(m.group(1), int(m.group(2))) for m in MARKED.finditer(block)] == [
        (parent_preds[("en-2", i)].pseudonym, i) for i in range(4)]

    _write(out, _edited(rows))
    imported = wb("review", "import", out, "--reviewer", "anna", store=path)
    assert imported.returncode == 0, imported.stderr
    assert f"3 of {tiny_corpus.n_slots} spans revised by anna (parent run {parent})" in imported.stdout
    store.close()
    store = RunStore(path)
    reviewed = next(r for r in store.runs() if r.run_id != parent)
    assert (reviewed.source, reviewed.generator, reviewed.mode, reviewed.corpus_hash) == (
        "reviewed", "hand", "maskL", tiny_corpus.content_hash)
    assert reviewed.config == {"parent": parent, "reviewer": "anna", "changed": 3}
    assert reviewed.options["parent"] == parent and reviewed.options["reviewer"] == "anna"

    preds = {(p.doc_id, p.span_index): p for p in store.predictions(reviewed.run_id)}
    assert preds.keys() == parent_preds.keys()
    changed = {k for k in preds if preds[k] != parent_preds[k]}
    assert changed == set(EDITS)
    assert all(preds[k].pseudonym == EDITS[k] and preds[k].note == NOTE_REVIEWED for k in EDITS)
    report = run_report(store, reviewed.run_id, REVIEW)
    assert {(r["doc_id"], r["span"]): (r["before"], r["after"]) for r in report["revisions"]} == {
        k: (parent_preds[k].pseudonym, v) for k, v in EDITS.items()}

    # The same file again: the same run, nothing added.
    again = import_review(store, out, "anna")
    assert again.run_id == reviewed.run_id and len(store.runs()) == 2

    # Metrics and the report's run legend over parent and revision.
    table = compute_metrics(metric_frame(store, [parent, reviewed.run_id]), make_context(),
                            families=("diversity", "overlap"), per_language=False)
    # The two exact copies of their original (Oslo, Eva Nowak) were the parent's only ones; the review removed them.
    copies = [k for k in EDITS if parent_preds[k].pseudonym == spans[k].text]
    assert len(copies) == 2
    assert table.at[parent, "overlap_absolute"] == pytest.approx(2 / tiny_corpus.n_slots)
    assert table.at[reviewed.run_id, "overlap_absolute"] == 0
    names = run_names(table)
    assert names[reviewed.run_id] == "hand maskL (reviewed)" and names[parent] != names[reviewed.run_id]
    signature = next(sig for _, _, _, sig in legend(table) if "source=reviewed" in sig)
    assert f'"parent":"{parent}"' in signature and '"reviewer":"anna"' in signature and '"changed":3' in signature
    store.close()


def _bad(tmp_path, tiny_corpus, change):
    """Export the parent, apply `change(rows)` to the edited rows, import: the error and the run count."""
    _, store, parent = _parent(tmp_path, tiny_corpus)
    out = export_review(store, parent, tmp_path / "run.csv").csv
    rows = _edited(_read(out))
    change(rows)
    _write(out, rows)
    with pytest.raises(WorkbenchError) as caught:
        import_review(store, out, "anna")
    assert [r.run_id for r in store.runs()] == [parent]  # nothing stored
    store.close()
    return str(caught.value), out


def _row(rows, doc_id, span):
    return next(r for r in rows if (r["doc_id"], r["span"]) == (doc_id, str(span)))


def test_an_unknown_span_is_refused(tmp_path, tiny_corpus):
    message, out = _bad(tmp_path, tiny_corpus, lambda rows: _row(rows, "en-2", 2).update(span="99"))
    # en-2's span 2 is the file's 13th row (en-1 has 10 spans)
    assert message.startswith(f"file {out}, row 13, document en-2, span 99: no span '99' to replace")
    assert "#0, #1, #2, #3" in message


def test_an_edited_original_is_refused(tmp_path, tiny_corpus):
    message, out = _bad(tmp_path, tiny_corpus, lambda rows: _row(rows, "sv-1", 0).update(original="Karin Strom"))
    assert message.startswith(f"file {out}, row 15, document sv-1, span #0 [0, 11) personal_name: "
                              "the `original` cell was changed")
    assert "Karin" not in message  # the texts are personal data: not printed


def test_a_wrong_document_is_refused(tmp_path, tiny_corpus):
    message, out = _bad(tmp_path, tiny_corpus, lambda rows: _row(rows, "en-1", 4).update(doc_id="en-9"))
    assert message.startswith(f"file {out}, row 5, document en-9: run ")
    assert "has no such document (its corpus tiny has 3)" in message


def test_an_edited_pseudonym_a_repeated_row_and_another_run_are_refused(tmp_path, tiny_corpus):
    message, out = _bad(tmp_path, tiny_corpus, lambda rows: _row(rows, "en-1", 2).update(pseudonym="1990"))
    assert message.startswith(f"file {out}, row 3, document en-1, span #2 [30, 34) DATETIME: the `pseudonym` "
                              "cell reads '1990', the run has '1980'")
    message, out = _bad(tmp_path / "repeat", tiny_corpus, lambda rows: rows.append(dict(rows[0])))
    assert f"row {tiny_corpus.n_slots + 1}, document en-1, span #0" in message
    assert f"listed twice (also at {out}, row 1)" in message
    message, out = _bad(tmp_path / "other", tiny_corpus, lambda rows: rows[3].update(run_id="0" * 16))
    assert message.startswith(f"file {out}, row 4: run_id '{'0' * 16}', but the file's first row names run ")


def test_no_revision_and_a_file_without_the_columns_are_refused(tmp_path, tiny_corpus):
    _, store, parent = _parent(tmp_path, tiny_corpus)
    out = export_review(store, parent, tmp_path / "run.csv").csv
    with pytest.raises(CorpusError, match="no row revises a pseudonym of run .*nothing to store"):
        import_review(store, out, "anna")
    out.write_text("doc_id,span,revised\nen-1,0,Eva\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"no column run_id, original, pseudonym in the header"):
        import_review(store, out, "anna")
    with pytest.raises(WorkbenchError, match="reviewer '' must be a non-empty name"):
        import_review(store, out, " ")
    assert len(store.runs()) == 1
    store.close()


def test_the_cli_refuses_a_bad_row_in_one_line(tmp_path, tiny_corpus):
    path, store, parent = _parent(tmp_path, tiny_corpus)
    out = export_review(store, parent, tmp_path / "run.csv").csv
    rows = _edited(_read(out))
    _row(rows, "en-2", 0).update(doc_id="nowhere")
    _write(out, rows)
    store.close()
    result = wb("review", "import", out, "--reviewer", "anna", store=path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.startswith(f"error: file {out}, row 11, document nowhere: run {parent} has no such")
    assert len(RunStore(path).runs()) == 1


def test_the_cli_asks_for_what_an_export_needs(tmp_path, tiny_corpus):
    path, store, parent = _parent(tmp_path, tiny_corpus)
    store.close()
    env = {k: v for k, v in os.environ.items() if k != "DOCCANO_PASSWORD"}
    no_file = wb("review", "export", parent[:8], store=path, env=env)
    assert (no_file.returncode, no_file.stderr) == (2, "error: give the CSV to write with -o FILE.csv (or --doccano)\n")
    no_password = wb("review", "export", parent[:8], "--doccano", store=path, env=env)
    assert no_password.returncode == 2
    assert no_password.stderr == "error: --doccano needs the doccano password: --password or $DOCCANO_PASSWORD\n"
    assert not list(tmp_path.glob("*.csv"))
