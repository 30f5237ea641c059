"""The provenance export (issue 41 item 4): stand-off records whose offsets point at the pseudonyms
in the written text, an inline-marked text, and the key apart; nothing of the originals outside
the key; a user's mistake exits 2 with one line."""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import pytest

from tests.helpers.entry_point import wb
from tests.metrics.conftest import add_run
from workbench.exchange.provenance import KEPT, MARK, REALISTIC, key_path, replacement_kind
from workbench.pipeline import generate_run
from workbench.store import RunStore

MARKED = re.compile(r"(?<!\\)\[((?:\\.|[^\\\]])*)\]\{((?:\\.|[^\\}])*)\}")


def _originals(corpus) -> set[str]:
    return {s.text for d in corpus.documents for s in d.spans if any(c.isalpha() for c in s.text)}


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def _export(path, run_id, out, *extra):
    result = wb("export", run_id, "--format", "provenance", "-o", out, "--store", path, *extra)
    assert result.returncode == 0, result.stderr
    return result


def test_round_trip_offsets_inline_marks_and_the_key_apart(tmp_path, tiny_corpus):
    path = tmp_path / "runs.sqlite"
    store = RunStore(path)
    run = generate_run(tiny_corpus, "surrogate", {"keep_gender": True}, {"seed": 7}, store=store,
                       tagger="spacy", quiet_tagger=True, progress=False).run
    store.close()
    out = tmp_path / "release" / "run.json"
    result = _export(path, run.run_id[:8], out, "--inline")
    key = key_path(out)
    assert key.name == "run.KEY-personal-data.json"
    assert f"warning: {key}" in result.stderr and "personal data" in result.stderr
    assert sorted(p.name for p in out.parent.iterdir()) == ["run.KEY-personal-data.json", "run.inline.txt",
                                                            "run.json"]  # no staging folder left

    data = json.loads(out.read_text(encoding="utf-8"))
    assert (data["generator"], data["seed"], data["settings"]["keep_gender"]) == ("surrogate", 7, True)
    spans = [s for d in data["documents"] for s in d["spans"]]
    assert len(spans) == tiny_corpus.n_slots
    for doc in data["documents"]:
        for s in doc["spans"]:
            assert doc["text"][s["start"]:s["end"]] == s["pseudonym"], s
            assert (s["generator"], s["seed"], s["settings"]["keep_gender"]) == ("surrogate", 7, True)
    assert {s["replacement"] for s in spans} == {REALISTIC}

    # The inline text: every mark is a span's pseudonym with its label, and without the marks it
    # is the pseudonymised document.
    inline = out.with_name("run.inline.txt").read_text(encoding="utf-8")
    for doc in data["documents"]:
        block = inline.split(f"# {doc['doc_id']}\n", 1)[1].split("\n# ", 1)[0].rstrip("\n")
        marks = [(_unescape(m.group(1)), _unescape(m.group(2))) for m in MARKED.finditer(block)]
        assert marks == [(s["pseudonym"], s["label"]) for s in doc["spans"]]
        assert _unescape(MARKED.sub(lambda m: m.group(1), block)) == doc["text"]

    # Nothing of the originals outside the key; the key maps each of them to its pseudonym.
    originals = _originals(tiny_corpus)
    assert {"Anna Berg", "Jan Kowalski", "Karin Ström"} <= originals
    for name in ("run.json", "run.inline.txt"):
        raw = (out.parent / name).read_text(encoding="utf-8")
        assert not [o for o in originals if o in raw], name
    entries = json.loads(key.read_text(encoding="utf-8"))["entries"]
    texts = {d["doc_id"]: d["text"] for d in data["documents"]}
    corpus_spans = {(d.doc_id, s.start, s.end): s.text for d in tiny_corpus.documents for s in d.spans}
    for e in entries:
        assert corpus_spans[(e["doc_id"], e["original_start"], e["original_end"])] == e["original"]
        assert texts[e["doc_id"]][e["start"]:e["end"]] == e["pseudonym"]


def test_marks_failed_suppressed_and_label_replacements(store, tmp_path, tiny_corpus):
    # en-2's four spans: a FAILED one, a suppressed one, a label a system wrote, a realistic name.
    run_id = add_run(store, tiny_corpus, {"en-2": [None, "", "[LOC]", "Per Holm"]})
    out = tmp_path / "run.json"
    _export(store.path, run_id, out)
    data = json.loads(out.read_text(encoding="utf-8"))
    kinds = {d["doc_id"]: [s["replacement"] for s in d["spans"]] for d in data["documents"]}
    assert kinds["en-2"] == [MARK, MARK, MARK, REALISTIC]


@pytest.mark.parametrize("source, generator, pseudonym, label, expected", [
    ("reference", "label-numbered", "PERSON_1", "PERSON", MARK),
    ("reference", "suppress", "", "PERSON", MARK),
    ("reference", "original", "Anna Berg", "PERSON", KEPT),
    ("generated", "surrogate", "Sven", "PERSON", REALISTIC),
    ("imported", "other", "@person", "PERSON", MARK),
    ("imported", "other", "<PERSON_3>", "PERSON", MARK),
    ("imported", "other", "Personne", "PERSON", REALISTIC),  # a name that starts like the label is a name
    ("generated", "surrogate", "[MASKED:PERSON]", "PERSON", MARK),  # masked: an unfinished run's span
])
def test_replacement_kind(source, generator, pseudonym, label, expected):
    run = SimpleNamespace(source=source, generator=generator)
    masked = pseudonym.startswith("[MASKED:")
    assert replacement_kind(run, label, pseudonym, failed=False, masked=masked) == expected


def test_bad_input_exits_2_with_one_line_and_writes_nothing(store, tmp_path, tiny_corpus):
    run_id = add_run(store, tiny_corpus, {"en-2": ["A", "B", "C", "D"]})
    out = tmp_path / "out" / "run.json"
    result = wb("export", "nosuchrun", "--format", "provenance", "-o", out, "--store", store.path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().count("\n") == 0 and "no run matching 'nosuchrun'" in result.stderr
    result = wb("export", run_id, "--format", "csv", "--inline", "-o", out, "--store", store.path)
    assert result.returncode == 2 and "--inline" in result.stderr and "provenance" in result.stderr
    assert not out.exists() and not key_path(out).exists()
