"""`workbench import-run` and the store file (issue 37 item 6): a refused file makes no store and
leaves an existing one as it was, an import killed half-way leaves no visible half-run (the run
is stored in one transaction, workbench.store.whole_run), and a key given twice inside an entry
is named as what it is."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
from contextlib import closing

import pytest

from tests.helpers.entry_point import wb, wb_ok, workbench_command
from tests.helpers.waiting import wait_until
from tests.metrics.conftest import WordListTagger
from workbench.exchange.importers import import_run
from workbench.infra.errors import CorpusError

SENTENCE = "Anna Berg met Per Holm in Oslo on day {n}. "
NAMES = (("Anna Berg", "PERSON"), ("Per Holm", "PERSON"), ("Oslo", "LOC"))


def _corpus(path, documents: int, sentences: int):
    """A doccano JSONL corpus of `documents` documents, three spans per sentence; the offsets by document."""
    spans = {}
    with path.open("w", encoding="utf-8") as f:
        for d in range(documents):
            text, labels = "", []
            for n in range(sentences):
                sentence = SENTENCE.format(n=n)
                for name, label in NAMES:
                    start = len(text) + sentence.index(name)
                    labels.append([start, start + len(name), label])
                text += sentence
            spans[f"doc-{d}"] = labels
            f.write(json.dumps({"doc_id": f"doc-{d}", "text": text, "lang": "en", "label": labels}) + "\n")
    return path, spans


def _replacements(path, spans, entry=lambda d, i, s, e: [s, e, f"R{i}"]):
    path.write_text(json.dumps({d: [entry(d, i, s, e) for i, (s, e, _) in enumerate(labels)]
                                for d, labels in spans.items()}), encoding="utf-8")
    return path


def test_a_refused_import_makes_no_store_and_leaves_an_existing_one_as_it_was(tmp_path):
    corpus, spans = _corpus(tmp_path / "c.jsonl", documents=2, sentences=2)
    bad = _replacements(tmp_path / "bad.json", spans, entry=lambda d, i, s, e: [s, e + 10_000, "R"])
    store = tmp_path / "runs.sqlite"
    refused = wb("import-run", bad, "-c", corpus, "--tagger", "spacy", store=store)
    assert refused.returncode == 2 and "entry lies outside the text" in refused.stderr, refused.stderr
    assert not store.exists() and list(tmp_path.glob("runs.sqlite*")) == []

    wb_ok("import-run", _replacements(tmp_path / "good.json", spans), "-c", corpus, "--tagger", "spacy",
          store=store)
    before = {p.name: p.read_bytes() for p in tmp_path.glob("runs.sqlite*")}
    refused = wb("import-run", bad, "-c", corpus, "--tagger", "spacy", store=store)
    assert refused.returncode == 2
    assert {p.name: p.read_bytes() for p in tmp_path.glob("runs.sqlite*")} == before


def test_a_key_given_twice_inside_an_entry_is_named(tmp_path, store, tiny_corpus):
    path = tmp_path / "twice.json"
    path.write_text('{"en-1": [[0, 9, "Eva"], {"text": "a", "text": "b"}]}', encoding="utf-8")
    with pytest.raises(CorpusError) as err:
        import_run(store, path, tiny_corpus, tagger=WordListTagger())
    assert str(err.value) == f"file {path}, document en-1, span entry #1: key 'text' given twice in one entry"
    path.write_text('{"en-1": [], "en-1": []}', encoding="utf-8")  # a document twice stays what it was
    with pytest.raises(CorpusError, match="document en-1: document listed twice"):
        import_run(store, path, tiny_corpus, tagger=WordListTagger())
    assert store.runs() == []


def _rows(store, table: str) -> int:
    """Rows another process sees in `table` of the store (0 before it exists)."""
    try:
        with closing(sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=0.05)) as db:
            return db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    except sqlite3.Error:
        return 0


def test_a_killed_import_leaves_no_half_run(tmp_path):
    """SIGKILL as soon as the store shows the originals' UPOS (committed first, the run in one
    transaction after them), or a run: `workbench runs` then lists no run or the complete run, never
    a running one, and the same command stores the run an uninterrupted import stores."""
    corpus, spans = _corpus(tmp_path / "c.jsonl", documents=80, sentences=10)
    data = _replacements(tmp_path / "system.json", spans)
    n_spans = sum(map(len, spans.values()))
    fresh = wb_ok("import-run", data, "-c", corpus, "--tagger", "spacy", store=tmp_path / "fresh.sqlite")
    for kill_at in ("span_upos", "runs"):
        store = tmp_path / f"killed-at-{kill_at}.sqlite"
        command = workbench_command("import-run", data, "-c", corpus, "--tagger", "spacy", "--store", store)
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            wait_until(lambda proc=proc, store=store, kill_at=kill_at:
                       proc.poll() is not None or _rows(store, kill_at) > 0,
                       300, f"the import to store a row in {kill_at}", interval=0.001)
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGKILL)
            else:  # finished first: not a kill, and then it must have succeeded
                assert proc.returncode == 0, proc.stderr.read().decode()
        finally:
            proc.kill()
            proc.wait()
        listed = wb_ok("runs", store=store)
        assert "running" not in listed, (kill_at, listed)
        stored = _rows(store, "runs")
        assert stored in (0, 1) and _rows(store, "predictions") == stored * n_spans, kill_at
        done = wb_ok("import-run", data, "-c", corpus, "--tagger", "spacy", store=store)
        assert done.split()[1:3] == fresh.split()[1:3] and fresh.split()[2] == "complete:"
        assert _rows(store, "predictions") == n_spans
