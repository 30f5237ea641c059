"""Imported replacements the store cannot hold or a reader cannot see are refused before
anything is written, naming file, document and entry (issue 10 item 13, importer parts)."""

from __future__ import annotations

import json
import re

import pytest

from tests.metrics.conftest import WordListTagger
from workbench.errors import CorpusError
from workbench.importers import import_run


def _file(tmp_path, corpus, doc_id, replacement_json):
    """INTACT JSON written by hand, so a lone surrogate escape (\\ud800) stays as JSON has it."""
    parts = []
    for d in corpus.documents:
        entries = []
        for n, s in enumerate(d.spans):
            text = replacement_json if (d.doc_id == doc_id and n == 1) else json.dumps(s.text[::-1])
            entries.append(f"[{s.start}, {s.end}, {text}]")
        parts.append(f"{json.dumps(d.doc_id)}: [{', '.join(entries)}]")
    path = tmp_path / "ext.json"
    path.write_text("{" + ", ".join(parts) + "}", encoding="utf-8")
    return path


@pytest.mark.parametrize("replacement, message", [
    ('"Ann\\ud800a"', "lone surrogate U+D800"),
    ('"\\udfff"', "lone surrogate U+DFFF"),
    ('"\\u200b"', "invisible"),
    ('"\\u200d\\u2060\\ufeff"', "invisible"),
    ('"\\u00a0\\u200b"', "invisible"),
])
def test_unstorable_or_invisible_replacements_are_refused_before_any_write(tmp_path, store, tiny_corpus,
                                                                            replacement, message):
    path = _file(tmp_path, tiny_corpus, "en-2", replacement)
    with pytest.raises(CorpusError, match=re.escape(message)) as err:
        import_run(store, path, tiny_corpus, tagger=WordListTagger())
    assert str(path) in str(err.value) and "document en-2" in str(err.value) and "entry #1" in str(err.value)
    assert store.runs() == [] and store.corpora() == []  # nothing written, not even a run row to delete
    assert store.db.execute("SELECT COUNT(*) FROM span_upos").fetchone()[0] == 0


def test_visible_text_with_joiners_is_accepted(tmp_path, store, tiny_corpus):
    path = _file(tmp_path, tiny_corpus, "en-2", json.dumps("Ana\u200dïs"))
    run = import_run(store, path, tiny_corpus, tagger=WordListTagger())
    assert "Ana\u200dïs" in {p.pseudonym for p in store.predictions(run.run_id)}


def test_the_cli_refuses_a_lone_surrogate_in_words(tmp_path):
    from workbench.loaders import shipped_corpus
    from tests.store_helpers import workbench
    corpus = shipped_corpus("pgv-pii-en")
    path = _file(tmp_path, corpus, corpus.documents[0].doc_id, '"X\\ud83d"')
    result = workbench("import-run", path, "-c", "pgv-pii-en", "--tagger", "spacy", "--store", tmp_path / "s.sqlite")
    assert result.returncode == 2 and "lone surrogate" in result.stderr and "Traceback" not in result.stderr
