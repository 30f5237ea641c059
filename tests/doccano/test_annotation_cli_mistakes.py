"""User mistakes in the annotations/doccano commands end in a message and exit 2, never a traceback
(issue 10 item 6); the commands' logic is reachable as library functions (issue 11 item 1)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.helpers.entry_point import wb
from workbench.annotation import Annotation, AnnotationStore
from workbench.annotation.results import write_table6_report
from workbench.annotation.sampling import draw_named_sample, sample_progress
from workbench.doccano import sync
from workbench.doccano.client import Project
from workbench.infra.errors import WorkbenchError


def fails_cleanly(*args, store, env=None, expect: str) -> str:
    result = wb(*args, store=store, env=env)
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr and expect in result.stderr, result.stderr
    return result.stderr


@pytest.fixture
def not_doccano():
    """An HTTP server on 127.0.0.1 that answers every request with an HTML page (some other web app)."""
    class Html(BaseHTTPRequestHandler):
        def do_GET(self):
            body = b"<html>not doccano</html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_POST = do_GET

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Html)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("mapping", ["admin", "admin=", "=anna", "=", " = "])
def test_a_bad_as_mapping_is_a_message(baseline_copy, mapping):
    # --as is checked before any server is asked (nothing listens on this URL).
    for command in (["doccano", "pull", "some project"], ["doccano", "sync", "abc"]):
        fails_cleanly(*command, "--as", mapping, "--password", "pw", "--url", "http://127.0.0.1:9",
                      store=baseline_copy, expect="USER=NAME")


def test_user_mapping():
    assert sync.user_mapping(["admin=anna", " bo = Bo B "]) == {"admin": "anna", "bo": "Bo B"}
    assert sync.user_mapping(["a=b=c"]) == {"a": "b=c"}
    with pytest.raises(WorkbenchError, match="twice"):
        sync.user_mapping(["a=b", "a=c"])


def test_server_mistakes_are_messages(baseline_copy, not_doccano):
    fails_cleanly("doccano", "pull", "p", "--password", "pw", "--url", "http://127.0.0.1.nip.io:8000",
                  store=baseline_copy, expect="not on this machine")
    fails_cleanly("doccano", "push", "abc", "--password", "pw", "--url", not_doccano, store=baseline_copy,
                  expect="is this a doccano 1.8 server?")
    fails_cleanly("doccano", "pull", "p", "--password", "pw", "--url", "http://127.0.0.1:9", store=baseline_copy,
                  expect="cannot reach doccano at http://127.0.0.1:9")


def test_annotation_commands_without_annotations_are_messages(baseline_copy, tmp_path):
    fails_cleanly("annotations", "table6", "-o", str(tmp_path / "out"), store=baseline_copy, expect="no annotations")
    fails_cleanly("annotations", "agreement", store=baseline_copy, expect="no annotations")
    fails_cleanly("annotations", "sample", "s", "-r", "zzzz", store=baseline_copy, expect="zzzz")
    assert not (tmp_path / "out").exists()


def test_library_functions_behind_the_commands(baseline_copy, tmp_path):
    s = AnnotationStore(baseline_copy)
    run = next(r.run_id for r in s.run_store.runs() if r.corpus_name == "pgv-pii-en")
    items = draw_named_sample(s, "lib", [run[:8]], 10, "span", 3)
    assert len(items) == 10 and {i.run_id for i in items} == {run}
    s.save_many([Annotation(i.run_id, i.doc_id, i.span_index, "anna", "OVERLAP") for i in items[:4]])
    progress, = sample_progress(s)
    assert (progress.name, progress.size, progress.done) == ("lib", 10, {"anna": 4})
    with pytest.raises(WorkbenchError, match="no annotations by 'bo'"):
        write_table6_report(s, tmp_path / "t6", [run], "bo")
    report = write_table6_report(s, tmp_path / "t6", [run], "anna")
    caption = (tmp_path / "t6" / "table6.md").read_text().splitlines()[0]
    assert caption == (f"Relative frequencies of error tags per generation method and language (annotator anna; "
                       f"4 pseudonyms; runs {run}).")
    assert [p.name for p in report.paths][-1] == "figure2.png" and all(p.exists() for p in report.paths)


class FakeDoccano:
    """Just enough of DoccanoClient for push-if-missing: records what was created and uploaded."""

    url = "http://127.0.0.1:1"

    def __init__(self):
        self.made: list[Project] = []
        self.uploads = 0

    def projects(self):
        return list(self.made)

    def create_project(self, name, description, guideline=""):
        self.made.append(Project(len(self.made) + 1, name))
        return self.made[-1]

    def count_examples(self, project):
        return self.uploads

    def ensure_labels(self, project, labels):
        return {name: k for k, (name, _) in enumerate(labels)}

    def upload_jsonl(self, project, content, filename="upload.jsonl"):
        self.uploads += 1
        self.lines = [json.loads(line) for line in content.decode().splitlines()]
        return {}

    def download_jsonl(self, project, timeout=120.0):
        return {"admin.jsonl": [json.dumps(line) for line in self.lines]}


def test_sync_pushes_only_when_the_project_is_missing(baseline_copy):
    s = AnnotationStore(baseline_copy)
    run = next(r.run_id for r in s.run_store.runs() if r.corpus_name == "pgv-pii-sv")
    client = FakeDoccano()
    first = sync.sync(s, client, run[:8], annotators={"admin": "anna"})
    assert first.created is not None and first.project == f"workbench run {run}" and client.uploads == 1
    again = sync.sync(s, client, run[:8])
    assert again.created is None and client.uploads == 1  # the second sync only pulls
    assert set(again.pulled) == {"admin"} and set(first.pulled) == {"anna"}


def test_dashboard_on_a_port_in_use_is_a_message(baseline_copy):
    import socket
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        fails_cleanly("dashboard", "--port", str(port), store=baseline_copy,
                      expect=f"cannot listen on 127.0.0.1:{port}")
