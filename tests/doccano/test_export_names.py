"""The two doccano exports say how they differ: `export --format doccano` writes the pseudonymised
corpus (entity labels), `doccano export-task` an error-annotation task (tag labels); the old
spelling `doccano export` still works, with a note."""

from __future__ import annotations

import json

import pytest

from tests.helpers.entry_point import wb
from workbench.doccano.format import PLACEHOLDER


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A finished random run over a two-document corpus file."""
    folder = tmp_path_factory.mktemp("names")
    corpus = folder / "mine.jsonl"
    corpus.write_text("\n".join(json.dumps(r) for r in [
        {"doc_id": "d1", "lang": "en", "text": "Anna Berg lives in Oslo.",
         "label": [[0, 9, "PERSON"], [19, 23, "LOC"]]},
        {"doc_id": "d2", "lang": "en", "text": "Per met Anna.", "label": [[0, 3, "PERSON"]]},
    ]) + "\n", encoding="utf-8")
    store = folder / "runs.sqlite"
    result = wb("generate", "-c", str(corpus), "-g", "random", "--tagger", "spacy", "--no-progress",
                "--store", str(store), cwd=folder)
    assert result.returncode == 0, result.stderr
    return folder, store, result.stdout.split()[1]


def lines(path):
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def test_export_task_writes_tag_labels_and_export_format_doccano_entity_labels(run):
    folder, store, run_id = run
    task = wb("doccano", "export-task", run_id, "-o", "task.jsonl", "--store", str(store), cwd=folder)
    corpus = wb("export", run_id, "--format", "doccano", "-o", "corpus.jsonl", "--store", str(store), cwd=folder)
    assert task.returncode == 0 and corpus.returncode == 0, task.stderr + corpus.stderr
    task_labels = {span[2] for line in lines(folder / "task.jsonl") for span in line["label"]}
    corpus_labels = {span[2] for line in lines(folder / "corpus.jsonl") for span in line["label"]}
    assert task_labels == {PLACEHOLDER} and corpus_labels == {"PERSON", "LOC"}


def test_old_spelling_still_writes_the_task_with_a_note(run):
    folder, store, run_id = run
    new = wb("doccano", "export-task", run_id, "-o", "new.jsonl", "--store", str(store), cwd=folder)
    old = wb("doccano", "export", run_id, "-o", "old.jsonl", "--store", str(store), cwd=folder)
    assert old.returncode == 0, old.stderr
    assert lines(folder / "old.jsonl") == lines(folder / "new.jsonl")
    assert "now `workbench doccano export-task`" in old.stderr and "now" not in new.stderr


def help_text(*command, cwd):
    return " ".join(wb(*command, "--help", cwd=cwd).stdout.split())  # click wraps lines anywhere


def test_help_tells_the_two_apart(run):
    folder, _, _ = run
    group = wb("doccano", "--help", cwd=folder).stdout
    assert "export-task" in group and "  export " not in group  # the old name is hidden
    assert "workbench doccano export-task" in help_text("export", cwd=folder)
    assert "workbench export RUN --format doccano" in help_text("doccano", "export-task", cwd=folder)
