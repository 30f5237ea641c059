"""What the store keeps of a judge: the reserved annotator names, the suggestion an annotator was
shown (with the tag, in the log, through JSONL), and the prompt version."""

from __future__ import annotations

import pytest

from workbench.annotation.jsonl import export_annotations, import_annotations
from workbench.annotation.storage import Annotation
from workbench.infra.errors import WorkbenchError


def first_item(store, run):
    p = store.run_store.predictions(run)[0]
    return run, p.doc_id, p.span_index


def test_a_person_cannot_annotate_under_a_judges_name(judged_store):
    store, run = judged_store
    with pytest.raises(WorkbenchError, match="kept for LLM judges"):
        store.save(Annotation(*first_item(store, run), "judge:qwen", "POS", "", "dashboard"))
    store.save(Annotation(*first_item(store, run), "judge:qwen", "POS", "", "judge", prompt_version="judge-1"))
    assert store.get(first_item(store, run), "judge:qwen").prompt_version == "judge-1"


def test_a_shown_suggestion_is_recorded_with_the_tag_and_in_the_log(judged_store):
    store, run = judged_store
    item = first_item(store, run)
    store.save(Annotation(*item, "anna", "GRAMMAR", "", "dashboard"))
    store.save(Annotation(*item, "anna", "POS", "", "dashboard", suggested_by="judge:qwen", suggested_tag="POS"))
    now = store.get(item, "anna")
    assert (now.tag, now.suggested_by, now.suggested_tag) == ("POS", "judge:qwen", "POS")
    assert [(a.tag, a.suggested_tag) for a in store.logged(item, "anna")] == [("GRAMMAR", ""), ("POS", "POS")]


@pytest.mark.parametrize("by, tag", [("judge:qwen", "MAYBE"), ("anna", "POS"), ("", "POS")])
def test_a_suggestion_needs_a_tag_and_a_judge(judged_store, by, tag):
    store, run = judged_store
    with pytest.raises(WorkbenchError, match="a suggestion needs"):
        store.save(Annotation(*first_item(store, run), "bo", "POS", "", "dashboard", suggested_by=by,
                              suggested_tag=tag))


def test_jsonl_keeps_the_prompt_version_and_the_suggestion(judged_store, tmp_path):
    store, run = judged_store
    item = first_item(store, run)
    store.save(Annotation(*item, "judge:qwen", "POS", "", "judge", prompt_version="judge-1"))
    store.save(Annotation(*item, "anna", "POS", "", "dashboard", suggested_by="judge:qwen", suggested_tag="POS"))
    export_annotations(store, tmp_path / "a.jsonl")
    store.run_store.db.execute("DELETE FROM annotations")  # the file brings them back
    assert import_annotations(store, tmp_path / "a.jsonl") == 2
    assert store.get(item, "judge:qwen").prompt_version == "judge-1"
    assert (store.get(item, "anna").suggested_by, store.get(item, "anna").suggested_tag) == ("judge:qwen", "POS")
