"""Sampling which pseudonyms to annotate; JSONL export and import of tags."""

from __future__ import annotations

import json

import pytest

from tests.helpers.annotation import copy_store, pgv_runs
from workbench.annotation import Annotation, AnnotationStore
from workbench.annotation.jsonl import export_annotations, import_annotations
from workbench.annotation.sampling import SampleRecipe, draw_sample
from workbench.infra.errors import WorkbenchError


def test_document_sampling_reads_documents_from_their_start_and_shares_them_across_runs(baseline_copy):
    s = AnnotationStore(baseline_copy)
    en = [r.run_id for r in s.run_store.runs() if r.corpus_name == "pgv-pii-en"]
    items = draw_sample(s.run_store, SampleRecipe(tuple(en), 50, "document", 0))
    for run in en:
        mine = [it for it in items if it.run_id == run]
        docs = {it.doc_id for it in mine}
        assert len(mine) == 50  # what was asked (issue 42), not every span of the last document
        # each document read from its start, every one whole but at most one (the last, cut)
        taken = {d: sorted(it.span_index for it in mine if it.doc_id == d) for d in docs}
        assert all(indices == list(range(len(indices))) for indices in taken.values())
        whole = {d: sum(1 for k in s.run_store.done_keys(run) if k[0] == d) for d in docs}
        assert sum(len(taken[d]) < whole[d] for d in docs) <= 1
    docs_per_run = [{it.doc_id for it in items if it.run_id == r} for r in en]
    assert docs_per_run[0] == docs_per_run[1]  # both generators judged on the same text
    assert draw_sample(s.run_store, SampleRecipe(tuple(en), 50, "document", 0)) == items  # seeded
    assert draw_sample(s.run_store, SampleRecipe(tuple(en), 50, "document", 1)) != items


def test_span_sampling_draws_exactly_n_distinct(baseline_copy):
    s = AnnotationStore(baseline_copy)
    runs = tuple(pgv_runs(s))
    items = draw_sample(s.run_store, SampleRecipe(runs, 25, "span", 4))
    assert len(items) == 25 * len(runs) == len(set(items))
    with pytest.raises(WorkbenchError, match="unknown sampling unit"):
        SampleRecipe(runs, 5, "sentence")


def test_jsonl_round_trip_into_another_store(annotated_store, tmp_path):
    src = AnnotationStore(annotated_store)
    out = tmp_path / "tags.jsonl"
    n = export_annotations(src, out)
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert n == len(lines) == len(src.annotations())
    assert {"original", "pseudonym", "lang", "tag", "annotator"} <= set(lines[0])

    other = tmp_path / "other"
    other.mkdir()
    dst = AnnotationStore(copy_store(src.run_store.path, other))
    dst.run_store.db.execute("DELETE FROM annotations")
    assert dst.annotations() == []
    assert import_annotations(dst, out) == n
    key = lambda a: (a.run_id, a.doc_id, a.span_index, a.annotator, a.tag, a.note)  # noqa: E731
    assert sorted(map(key, dst.annotations())) == sorted(map(key, src.annotations()))


@pytest.mark.parametrize("mutate, message", [
    (lambda o: o.update(tag="NOPE"), "line 2.*unknown tag 'NOPE'"),
    (lambda o: o.update(pseudonym="something else"), "line 2.*pseudonym .* differs"),
    (lambda o: o.update(span_index="3"), "line 2: span_index must be an integer"),
    (lambda o: o.pop("run_id"), "line 2: missing run_id"),
    (lambda o: o.update(run_id="0000"), "line 2: no run '0000'"),
])
def test_bad_jsonl_lines_are_named_and_nothing_is_imported(annotated_store, tmp_path, mutate, message):
    src = AnnotationStore(annotated_store)
    out = tmp_path / "tags.jsonl"
    export_annotations(src, out, annotators=["rule"])
    lines = [json.loads(line) for line in out.read_text().splitlines()[:3]]
    mutate(lines[1])
    out.write_text("".join(json.dumps(o) + "\n" for o in lines))
    before = len(src.annotations())
    with pytest.raises(WorkbenchError, match=f"tags.jsonl, {message}"):
        import_annotations(src, out, annotator="imported")
    assert len(src.annotations()) == before


def test_invalid_json_line(annotated_store, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"run_id": 1}\n{oops\n')
    with pytest.raises(WorkbenchError, match="bad.jsonl, line 1: missing"):
        import_annotations(AnnotationStore(annotated_store), bad)
    bad.write_text("\n{oops\n")
    with pytest.raises(WorkbenchError, match="bad.jsonl, line 2: invalid JSON"):
        import_annotations(AnnotationStore(annotated_store), bad)


def test_annotation_dataclass_item():
    assert Annotation("r", "d", 3, "a", "POS").item == ("r", "d", 3)


def test_a_note_with_line_separators_survives_export_and_import(annotated_store, tmp_path):
    """issue 10 #18: a note holding U+2028/U+2029/U+0085 used to break `annotations import`."""
    src = AnnotationStore(annotated_store)
    first = src.annotations()[0]
    note = "first line\u2028second\u2029third\x85fourth\rfifth"
    src.save(Annotation(first.run_id, first.doc_id, first.span_index, first.annotator, first.tag, note))
    out = tmp_path / "tags.jsonl"
    n = export_annotations(src, out)
    raw = out.read_text(encoding="utf-8")
    assert len(raw.splitlines()) == n  # escaped: every line splitter sees one record a line
    src.run_store.db.execute("DELETE FROM annotations")
    assert import_annotations(src, out) == n
    notes = {(a.run_id, a.doc_id, a.span_index, a.annotator): a.note for a in src.annotations()}
    assert notes[(first.run_id, first.doc_id, first.span_index, first.annotator)] == note
