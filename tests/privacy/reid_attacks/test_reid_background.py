"""Background knowledge files: the shipped one for tab-test, a user's own, and every way one can be wrong."""

from __future__ import annotations

import json

import pytest

from tests.privacy.reid_helpers import background, corpus, write_run
from workbench.infra.errors import WorkbenchError


def test_tab_test_ships_background_for_every_document():
    from workbench.loaders import shipped_corpus
    from workbench.privacy.reid_attacks.background import load_background, resolve_background
    tab = shipped_corpus("tab-test")
    bk = load_background(resolve_background("tab-test", None))
    assert bk.missing(d.doc_id for d in tab.documents) == []
    assert len(bk.individuals) == 127 and bk.path.parent.name == "tab-bk"
    assert (bk.path.parent / "LICENSE").is_file()
    assert resolve_background("tab-test:16docs", None) == bk.path  # a subset of the corpus has it too
    assert not any(t.startswith("\ufeff") for t in bk.texts)  # the texts' leading byte-order marks are not text


def test_a_corpus_without_shipped_background_needs_a_file():
    from workbench.privacy.reid_attacks.background import resolve_background
    with pytest.raises(WorkbenchError, match="pgv-pii-en.*--background FILE"):
        resolve_background("pgv-pii-en", None)


BAD = [
    ("notjson.json", b"{\"a\": \"text\",", "invalid JSON at line 1"),
    ("list.json", b"[\"text\"]", "expected a JSON object"),
    ("empty.json", b"{}", "holds no individuals"),
    ("number.json", b"{\"doc-a\": 3}", "entry 'doc-a' is a JSON int"),
    ("blank.json", b"{\"doc-a\": \" \\n\"}", "entry 'doc-a' has an empty text"),
    ("twice.json", b"{\"doc-a\": \"x\", \"doc-a\": \"y\"}", "individual 'doc-a' is listed twice"),
    ("latin1.json", "{\"doc-a\": \"Göteborg\"}".encode("latin-1"), "not UTF-8"),
    # Issue 24 item 16: a RecursionError and a ValueError before (import-run named both).
    ("deep.json", b"[" * 100_000 + b"]" * 100_000, "invalid JSON: nested too deeply"),
    ("huge.json", b"{\"doc-a\": " + b"9" * 5000 + b"}", "invalid JSON: Exceeds the limit"),
]


@pytest.mark.parametrize("name, content, message", BAD, ids=[b[0] for b in BAD])
def test_a_bad_background_file_is_refused_naming_file_and_entry(tmp_path, name, content, message):
    from workbench.privacy.reid_attacks.background import load_background
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(WorkbenchError, match=message) as caught:
        load_background(path)
    assert str(path) in str(caught.value)


def test_a_missing_background_file_is_named(tmp_path):
    from workbench.privacy.reid_attacks.background import load_background
    with pytest.raises(WorkbenchError, match="nothere.json"):
        load_background(tmp_path / "nothere.json")


def test_a_background_of_another_corpus_is_refused_before_anything_is_stored(store, tmp_path):
    from workbench.privacy.reid_attacks.reid import reid_risk
    c = corpus()
    run = write_run(store, c, "original", lambda s: s.text)
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"001-1": "a judgment", "001-2": "another"}), encoding="utf-8")
    with pytest.raises(WorkbenchError, match=r"other\.json: none of the 5 documents"):
        reid_risk(store, [run], background=other)
    assert store.db.execute("SELECT COUNT(*) FROM reid_results").fetchone()[0] == 0


def test_an_edited_background_file_is_read_again(tmp_path):
    from workbench.privacy.reid_attacks.background import load_background
    path = background(tmp_path / "bk.json")
    first = load_background(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["doc-new"] = "someone else entirely, with a much longer text than before"
    path.write_text(json.dumps(data), encoding="utf-8")
    second = load_background(path)
    assert "doc-new" in second.individuals and second.sha256 != first.sha256


def test_cli_reports_risk_and_names_a_bad_background(store, tmp_path):
    import subprocess

    from tests.helpers.entry_point import WORKBENCH
    c = corpus()
    run = write_run(store, c, "original", lambda s: s.text)
    bk = background(tmp_path / "bk.json")
    ok = subprocess.run([WORKBENCH, "privacy", "reid", run[:10], "--background", str(bk), "-k", "2",
                         "--store", str(store.path)], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    line = next(out for out in ok.stdout.splitlines() if out.startswith(run[:12]))
    assert line.split()[3:7] == ["retrieval", "1.000", "1.00", "1.000"]
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]", encoding="utf-8")
    refused = subprocess.run([WORKBENCH, "privacy", "reid", run[:10], "--background", str(bad),
                              "--store", str(store.path)], capture_output=True, text=True)
    assert refused.returncode == 2 and "bad.json" in refused.stderr and "Traceback" not in refused.stderr


def test_a_background_of_stop_words_only_is_refused_naming_the_file(store, tmp_path):
    """Issue 24 item 16: bm25s's "max() arg is an empty sequence" before; nothing is stored."""
    import subprocess

    from tests.helpers.entry_point import WORKBENCH
    run = write_run(store, corpus(), "original", lambda s: s.text)
    bk = tmp_path / "stop.json"
    bk.write_text(json.dumps({f"doc-{c}": "The and of it, a: the." for c in "abcde"}), encoding="utf-8")
    refused = subprocess.run([WORKBENCH, "privacy", "reid", run[:10], "--background", str(bk),
                              "--store", str(store.path)], capture_output=True, text=True)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr, refused.stderr
    assert f"background knowledge {bk}: none of its 5 text(s) has a word" in refused.stderr
    assert "not an English stop word" in refused.stderr and "-o stopwords=none" in refused.stderr
    assert store.db.execute("SELECT COUNT(*) FROM reid_results").fetchone()[0] == 0
