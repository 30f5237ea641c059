"""Exports are shareable by default (issue 24 item 9): no `original` column, no original span text
anywhere in the file, entity ids as opaque keys (the workbench's own ids embed the normalised
name: `en-2|PERSON|jan kowalski`); `--with-originals` is for analysis."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from tests.helpers.entry_point import wb
from tests.helpers.store import import_replacements
from workbench.exchange.exporters import export_entity_keys, export_run


def _run(store, tmp_path, corpus, name="ext"):
    # Replacements that share nothing with any original: what remains of one in the file leaked.
    return import_replacements(store, tmp_path, corpus, replace=lambda s: f"R{s.start}", name=name)


def _worded_originals(corpus) -> set[str]:
    """Every original span text holding a letter. A numeral alone ('1975') is left out: the file
    also holds the import's path, whose pytest folder number is not the test's to choose."""
    return {s.text for d in corpus.documents for s in d.spans if any(c.isalpha() for c in s.text)}


def _entity_partition(frame) -> set[frozenset]:
    return {frozenset(zip(g.doc_id, g.span_index)) for _, g in frame.groupby("entity_id")}


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_tables_hold_no_original_by_default(store, tmp_path, tiny_corpus, fmt):
    run = _run(store, tmp_path, tiny_corpus)
    path = export_run(store, run.run_id, fmt, tmp_path / f"run.{fmt}")
    frame = pd.read_csv(path) if fmt == "csv" else pd.read_parquet(path)
    assert "original" not in frame.columns and len(frame) == tiny_corpus.n_slots
    raw = path.read_bytes()
    cells = " ".join(str(v) for v in frame.to_numpy().ravel())  # Parquet may compress what it stores
    originals = _worded_originals(tiny_corpus)
    assert "Jan Kowalski" in originals and "läkare" in originals
    for text in originals:
        assert text.encode("utf-8") not in raw and text not in cells, text
        assert text.casefold() not in cells.casefold(), text  # not even normalised, as entity ids held it


def test_entity_keys_are_per_document_in_first_mention_order_and_stable(store, tmp_path, tiny_corpus):
    run = _run(store, tmp_path, tiny_corpus)
    frame = pd.read_csv(export_run(store, run.run_id, "csv", tmp_path / "a.csv"))
    en1 = frame[frame.doc_id == "en-1"].sort_values("span_index")
    # Anna Berg, Oslo, 1975, Paris, 1999, Anna Berg, Nordbank, Olle, Oslo, teacher
    assert list(en1.entity_id) == [f"en-1|e{n:03d}" for n in (1, 2, 3, 4, 5, 1, 6, 7, 2, 8)]
    # The same entities as the workbench's own ids, only unreadable.
    full = pd.read_csv(export_run(store, run.run_id, "csv", tmp_path / "b.csv", with_originals=True))
    assert _entity_partition(frame) == _entity_partition(full)
    # Stable: another export of the run, and a run of another system over the same corpus, agree.
    again = export_run(store, run.run_id, "csv", tmp_path / "c.csv")
    assert again.read_bytes() == (tmp_path / "a.csv").read_bytes()
    other = _run(store, tmp_path, tiny_corpus, name="other")
    assert list(pd.read_csv(export_run(store, other.run_id, "csv", tmp_path / "o.csv")).entity_id) == \
        list(frame.entity_id)
    assert export_entity_keys(tiny_corpus)[("en-2", 0)] == "en-2|e001"


def test_with_originals_restores_the_original_column_and_readable_ids(store, tmp_path, tiny_corpus):
    run = _run(store, tmp_path, tiny_corpus)
    out = tmp_path / "full.parquet"
    result = wb("export", run.run_id[:8], "--format", "parquet", "--with-originals", "-o", out,
                "--store", store.path)
    assert result.returncode == 0, result.stderr
    frame = pd.read_parquet(out)
    texts = {(d.doc_id, i): s.text for d in tiny_corpus.documents for i, s in enumerate(d.spans)}
    assert list(frame.original) == [texts[k] for k in zip(frame.doc_id, frame.span_index)]
    assert "en-2|PERSON|jan kowalski" in set(frame.entity_id)


@pytest.mark.parametrize("fmt", ["tab", "intact", "doccano"])
def test_the_other_formats_hold_no_original_text(store, tmp_path, tiny_corpus, fmt):
    run = _run(store, tmp_path, tiny_corpus)
    raw = export_run(store, run.run_id, fmt, tmp_path / f"run.{fmt}").read_text(encoding="utf-8")
    for text in _worded_originals(tiny_corpus):
        assert text not in raw and json.dumps(text)[1:-1] not in raw, text


@pytest.mark.parametrize("fmt", ["tab", "intact"])
def test_with_originals_is_refused_where_it_adds_nothing(store, tmp_path, tiny_corpus, fmt):
    run = _run(store, tmp_path, tiny_corpus)
    out = tmp_path / f"run.{fmt}"
    result = wb("export", run.run_id[:8], "--format", fmt, "--with-originals", "-o", out,
                "--store", store.path)
    assert result.returncode == 2 and "Traceback" not in result.stderr and not out.exists()
    assert f"a {fmt} export holds offsets and replacements only" in result.stderr


def test_export_help_says_what_each_format_holds():
    text = wb("export", "--help").stdout
    for line in ("tab      offsets of the masked spans; no text at all",
                 "intact   offsets and replacements; no original text",
                 "csv      a row per span (workbench.store.tidy_frame) without `original`",
                 "--with-originals"):
        assert line in text, line
