"""The doccano round trip against a real doccano 1.8.4 server on 127.0.0.1.

The server runs from .venv-doccano (.ci/steps/doccano.sh) exactly as
shared/notes/doccano.md describes: gunicorn bound to 127.0.0.1 plus the `doccano task`
worker. Locally without that virtualenv the tests skip with the reason; under CI they fail
instead, because CI's setup must have made it.
"""

from __future__ import annotations

import os
import random

import pytest

from tests.helpers.entry_point import wb
from workbench.annotation import Annotation, load_tagset
from workbench.doccano import sync
from workbench.doccano.client import DoccanoClient
from workbench.doccano.format import PLACEHOLDER
from workbench.doccano.server import LocalDoccano, doccano_venv

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    if not (doccano_venv() / "bin" / "doccano").exists():
        message = f"no doccano virtualenv at {doccano_venv()} (bash .ci/steps/doccano.sh makes it)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    # A password that starts with "-", as secrets.token_urlsafe's does 1 time in 64: createuser must take it.
    with LocalDoccano(tmp_path_factory.mktemp("doccano-home"), password="-starts-with-a-dash") as s:
        yield s


def run_of(store, corpus, generator):
    return next(r.run_id for r in store.run_store.runs() if r.corpus_name == corpus and r.generator == generator)


def test_server_binds_loopback_only(server):
    assert server.url.startswith("http://127.0.0.1:")


def test_round_trip_preserves_every_tag(server, annotation_store):
    run = run_of(annotation_store, "pgv-pii-sv", "upos")
    tagset = load_tagset()
    rng = random.Random(11)
    preds = annotation_store.run_store.predictions(run)
    tagged = [p for p in preds if rng.random() < 0.8]  # some stay untagged, as in a session under way
    annotation_store.save_many([Annotation(run, p.doc_id, p.span_index, "anna", rng.choice(tagset.names))
                                for p in tagged])
    assert {a.tag for a in annotation_store.annotations([run], ["anna"])} == set(tagset.names)  # every tag in play

    client = DoccanoClient(server.url, server.username, server.password)
    pushed = sync.push(annotation_store, client, run, annotator="anna")
    assert (pushed.spans, pushed.tagged) == (len(preds), len(tagged))
    assert client.count_examples(pushed.project.id) == pushed.documents
    labels = client.labels(pushed.project.id)
    assert set(labels) == set(tagset.names) | {PLACEHOLDER}

    parsed = sync.pull(annotation_store, client, pushed.project.id, annotators={server.username: "anna-via-doccano"})
    result = parsed["anna-via-doccano"]
    assert result.untagged == len(preds) - len(tagged)
    before = {(a.doc_id, a.span_index): a.tag for a in annotation_store.annotations([run], ["anna"])}
    after = {(a.doc_id, a.span_index): a.tag for a in annotation_store.annotations([run], ["anna-via-doccano"])}
    assert after == before  # every tag, on every pseudonym, came back
    assert all(a.source == "doccano" for a in annotation_store.annotations([run], ["anna-via-doccano"]))

    with pytest.raises(Exception, match="already holds documents"):
        sync.push(annotation_store, client, run, annotator="anna")


def test_an_edit_made_in_doccano_comes_back(server, annotation_store):
    """Live sync: an annotator relabels a span on the server; pulling updates the annotation_store."""
    run = run_of(annotation_store, "pgv-pii-en", "random")
    client = DoccanoClient(server.url, server.username, server.password)
    pushed = sync.push(annotation_store, client, run)  # nobody has tagged this run: every span UNTAGGED
    project = pushed.project.id
    example = client._call("GET", f"/v1/projects/{project}/examples", params={"limit": 1}).json()["results"][0]
    spans = client._call("GET", f"/v1/projects/{project}/examples/{example['id']}/spans").json()
    target = spans[0]
    labels = client.labels(project)
    client._call("PATCH", f"/v1/projects/{project}/examples/{example['id']}/spans/{target['id']}",
                 json={"label": labels["SEM:CONTRADICTORY"]})
    parsed = sync.pull(annotation_store, client, project)
    imported = parsed[server.username].annotations
    assert len(imported) == 1 and imported[0].tag == "SEM:CONTRADICTORY"
    assert parsed[server.username].untagged == pushed.spans - 1
    corpus = annotation_store.run_store.load_corpus(annotation_store.run_store.resolve_run(run).corpus_hash)
    doc = corpus.document(imported[0].doc_id)
    assert example["text"][target["start_offset"]:target["end_offset"]] == next(
        p.pseudonym for p in annotation_store.run_store.predictions(run)
        if p.doc_id == doc.doc_id and p.span_index == imported[0].span_index)


def test_cli_sync_creates_the_project_and_pulls(server, annotation_store, monkeypatch):
    run = run_of(annotation_store, "pgv-pii-sv", "random")
    env = dict(os.environ, DOCCANO_PASSWORD=server.password)
    result = wb("doccano", "sync", run[:8], "--url", server.url, "--as", "admin=cli",
                store=annotation_store.run_store.path, env=env)
    assert result.returncode == 0, result.stderr
    assert f"created project 'workbench run {run}'" in result.stdout
    assert "cli: 0 tags imported" in result.stdout
    again = wb("doccano", "sync", run[:8], "--url", server.url, "--as", "admin=cli",
               store=annotation_store.run_store.path, env=env)
    assert again.returncode == 0 and "created project" not in again.stdout  # the second sync only pulls


def test_a_review_round_trip_through_doccano(server, tmp_path, tiny_corpus):
    """The review loop (issue 41 item 3) through the server: a Seq2seq project with one example per
    span; a reviewer writes three texts in doccano; pulling stores a run with exactly those changed."""
    from tests.metrics.conftest import RUN_A, UPOS_A, add_run
    from workbench.doccano.review import pull_review, push_review
    from workbench.prediction_notes import NOTE_REVIEWED
    from workbench.store import RunStore

    store = RunStore(tmp_path / "runs.sqlite")
    parent = add_run(store, tiny_corpus, RUN_A, upos=UPOS_A)
    client = DoccanoClient(server.url, server.username, server.password)
    pushed = push_review(store, client, parent)
    project = pushed.project.id
    assert pushed.examples == client.count_examples(project) == tiny_corpus.n_slots

    examples = client._call("GET", f"/v1/projects/{project}/examples", params={"limit": 100}).json()["results"]
    by_span = {(e["meta"]["doc_id"], int(e["meta"]["span"])): e for e in examples}
    parent_preds = {(p.doc_id, p.span_index): p for p in store.predictions(parent)}
    assert by_span.keys() == parent_preds.keys()
    assert all(f" → {parent_preds[k].pseudonym}\n" in e["text"] for k, e in by_span.items())
    edits = {("en-1", 8): "Bergen", ("en-2", 1): "Ewa Lis", ("sv-1", 3): "snickare"}
    for key, text in edits.items():
        client._call("POST", f"/v1/projects/{project}/examples/{by_span[key]['id']}/texts", json={"text": text})

    reviewed = pull_review(store, client, project, "anna")
    assert (reviewed.source, reviewed.config) == ("reviewed", {"parent": parent, "reviewer": "anna", "changed": 3})
    preds = {(p.doc_id, p.span_index): p for p in store.predictions(reviewed.run_id)}
    assert {k for k in preds if preds[k] != parent_preds[k]} == set(edits)
    assert all(preds[k].pseudonym == v and preds[k].note == NOTE_REVIEWED for k, v in edits.items())
    assert pull_review(store, client, pushed.project.name, "anna").run_id == reviewed.run_id  # no duplicate
    assert len(store.runs()) == 2
    with pytest.raises(Exception, match="already holds examples"):
        push_review(store, client, parent)
    store.close()
