"""doccano JSONL export/import without a server: shape, checks, precedence."""

from __future__ import annotations

import json

import pytest

from workbench.annotation import Annotation
from workbench.doccano.client import DoccanoClient
from workbench.doccano.format import META_KEYS, PLACEHOLDER, export_lines, export_project, import_export
from workbench.infra.errors import WorkbenchError
from workbench.text.replace import pseudonymise


def sv_run(store):
    return next(r.run_id for r in store.run_store.runs() if r.corpus_name == "pgv-pii-sv" and r.generator == "upos")


def test_export_is_a_sequence_labelling_project_with_uniform_metadata(annotation_store, tmp_path):
    run = sv_run(annotation_store)
    preds = annotation_store.run_store.predictions(run)
    annotation_store.save(Annotation(run, preds[0].doc_id, preds[0].span_index, "anna", "GRAMMAR"))
    n = export_project(annotation_store, run, tmp_path / "p.jsonl", annotator="anna")
    lines = [json.loads(x) for x in (tmp_path / "p.jsonl").read_text(encoding="utf-8").splitlines()]
    assert n == len(lines) == len({p.doc_id for p in preds})
    assert all(set(line) == {"text", "label", *META_KEYS} for line in lines)  # doccano needs the same keys
    assert "id" not in META_KEYS  # doccano's export would overwrite it
    corpus = annotation_store.run_store.load_corpus(annotation_store.run_store.resolve_run(run).corpus_hash)
    for line in lines:
        doc = corpus.document(line["doc_id"])
        picks = {p.span_index: p.pseudonym for p in preds if p.doc_id == doc.doc_id}
        text, placed = pseudonymise(doc, picks)
        assert line["text"] == text and line["run_id"] == run and line["lang"] == "sv"
        assert [lab[:2] for lab in line["label"]] == [[r.start, r.end] for r in placed]
        assert all(text[s:e] == picks[r.span_index] for (s, e, _), r in zip(line["label"], placed))
    tags = [lab[2] for line in lines for lab in line["label"]]
    assert tags.count("GRAMMAR") == 1 and tags.count(PLACEHOLDER) == len(preds) - 1


def test_import_back_and_precedence_for_several_tags(annotation_store, tmp_path):
    run = sv_run(annotation_store)
    lines = export_lines(annotation_store, run)
    first = lines[0]
    (s0, e0, _), (s1, e1, _) = first["label"][:2]
    first["label"][0][2] = "SEM:CATEGORY"
    first["label"].append([s0, e0, "POS"])  # a second tag on the same pseudonym: POS precedes
    first["label"][1][2] = "NO_ERROR"
    path = tmp_path / "bo.jsonl"
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    parsed = import_export(annotation_store, path)
    got = {(a.doc_id, a.span_index): a.tag for a in annotation_store.annotations([run], ["bo"])}  # name from the file
    assert list(got.values()) == ["POS", "NO_ERROR"] and parsed.resolved == 1
    assert parsed.untagged == sum(len(x["label"]) for x in lines) - 3
    assert all(a.source == "doccano" for a in annotation_store.annotations([run], ["bo"]))


@pytest.mark.parametrize("mutate, message", [
    (lambda x: x["label"].append([0, 1, "POS"]), r"span \[0, 1\) .* is not one of the run's replacements"),
    (lambda x: x.update(text=x["text"] + " edited"), "the text differs"),
    (lambda x: x["label"][0].__setitem__(2, "WRONG"), "unknown tag 'WRONG'"),
    (lambda x: x.pop("run_id"), "missing run_id"),
    (lambda x: x.update(label="POS"), "`label` is not a list"),
])
def test_bad_doccano_lines_are_named_and_nothing_imported(annotation_store, tmp_path, mutate, message):
    run = sv_run(annotation_store)
    lines = export_lines(annotation_store, run)
    for x in lines:
        for lab in x["label"]:
            lab[2] = "NO_ERROR"
    mutate(lines[1])
    path = tmp_path / "admin.jsonl"
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    with pytest.raises(WorkbenchError, match=f"admin.jsonl, line 2: .*{message}"):
        import_export(annotation_store, path, annotator="anna")
    assert annotation_store.annotations() == []


def test_client_refuses_a_remote_server_unless_asked():
    with pytest.raises(WorkbenchError, match="not on this machine"):
        DoccanoClient("http://example.org:8000", "admin", "pw")


def test_a_pseudonym_with_line_separators_survives_export_and_import(annotation_store, tmp_path):
    """issue 10 #18: generate → export → import with U+2028/U+2029/U+0085 in a pseudonym."""
    run = sv_run(annotation_store)
    pred = annotation_store.run_store.predictions(run)[0]
    odd = "Li\u2028n\u2029d\x85a"
    annotation_store.run_store.db.execute(
        "UPDATE predictions SET pseudonym=? WHERE run_id=? AND doc_id=? AND span_index=?",
        (odd, run, pred.doc_id, pred.span_index))
    annotation_store.run_store.db.commit()
    path = tmp_path / "anna.jsonl"
    n = export_project(annotation_store, run, path)
    assert len(path.read_text(encoding="utf-8").splitlines()) == n  # one record a line for any splitter
    lines = [json.loads(x) for x in path.read_text(encoding="utf-8").split("\n") if x]
    assert any(odd in line["text"] for line in lines)
    for line in lines:
        line["label"] = [[s, e, "NO_ERROR"] for s, e, _ in line["label"]]
    from workbench.infra import jsonl
    jsonl.write(path, lines)
    import_export(annotation_store, path)
    tagged = {(a.doc_id, a.span_index) for a in annotation_store.annotations([run], ["anna"])}
    assert (pred.doc_id, pred.span_index) in tagged
