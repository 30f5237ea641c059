"""Exports never write original personal data of an unfinished run, and the workbench
reads its own JSONL export back (issue 10 items 8 and 18)."""

from __future__ import annotations

import json

import pytest

from tests.helpers.entry_point import wb
from tests.helpers.store import import_replacements
from tests.metrics.conftest import WordListTagger
from workbench.exchange.exporters import FORMATS, MASKED_FORMAT, export_run
from workbench.infra.errors import WorkbenchError
from workbench.store import RunStore


def _killed_before_the_first_prediction(store, corpus):
    """The run row as `generate` leaves it when killed before its first batch was stored."""
    from workbench.generation.engine import run_generation
    from workbench.generator_contract import create_generator

    generator = create_generator("random")

    def killed(slots):
        raise KeyboardInterrupt

    generator.generate = killed
    with pytest.raises(KeyboardInterrupt):
        run_generation(store, corpus, generator, WordListTagger(), progress=False)
    [run] = store.runs()
    assert run.status == "running" and store.count_predictions(run.run_id) == 0
    return run


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_unfinished_run_is_not_exported(tmp_path, tiny_corpus, fmt):
    path = tmp_path / "runs.sqlite"
    run = _killed_before_the_first_prediction(RunStore(path), tiny_corpus)
    out = tmp_path / f"out.{fmt}"
    with pytest.raises(WorkbenchError, match=f"run {run.run_id} is not complete .0/{tiny_corpus.n_slots} spans"):
        export_run(RunStore(path), run.run_id, fmt, out)
    assert not out.exists() and not out.with_name(out.name + ".partial").exists()
    result = wb("export", run.run_id[:8], "--format", fmt, "-o", out, "--store", path)
    assert result.returncode == 2 and "--unfinished" in result.stderr and not out.exists()


@pytest.mark.parametrize("fmt", ["doccano", "intact"])
def test_unfinished_export_masks_every_span_not_generated(tmp_path, tiny_corpus, fmt):
    path = tmp_path / "runs.sqlite"
    run = _killed_before_the_first_prediction(RunStore(path), tiny_corpus)
    out = tmp_path / f"out.{fmt}"
    result = wb("export", run.run_id[:8], "--format", fmt, "-o", out, "--unfinished", "--store", path)
    assert result.returncode == 0 and f"{tiny_corpus.n_slots} span(s) not generated yet" in result.stderr
    text = out.read_text(encoding="utf-8")
    docs = {d.doc_id: d for d in tiny_corpus.documents}
    if fmt == "doccano":
        for line in text.splitlines():
            record = json.loads(line)
            doc = docs[record["doc_id"]]
            for (start, end, label), _i in zip(record["label"], doc.masked_spans):
                assert record["text"][start:end] == MASKED_FORMAT.format(label=label)
            for i in doc.masked_spans:
                assert doc.spans[i].text not in record["text"]  # no original name, place or date left
    else:
        data = json.loads(text)
        for doc_id, entries in data.items():
            assert [e[2] for e in entries] == [MASKED_FORMAT.format(label=docs[doc_id].spans[i].label)
                                                for i in docs[doc_id].masked_spans]


SEPARATORS = ("\u2028", "\u2029", "\x85")


def test_a_doccano_export_with_line_separators_loads_back_as_a_corpus(tmp_path, store, tiny_corpus):
    from workbench.loaders import load_corpus
    from workbench.text.replace import pseudonymise

    def replace(span):
        return f"{span.text[:2]}{SEPARATORS[span.start % 3]}{span.text[2:]}x"
    run = import_replacements(store, tmp_path, tiny_corpus, replace=replace)
    out = export_run(store, run.run_id, "doccano", tmp_path / "export.jsonl")
    raw = out.read_text(encoding="utf-8")
    assert not any(sep in raw for sep in SEPARATORS)  # escaped, one record a line for every reader
    assert len(raw.splitlines()) == len(tiny_corpus.documents)
    loaded = load_corpus(str(out), format="doccano")
    preds = {}
    for p in store.predictions(run.run_id):
        preds.setdefault(p.doc_id, {})[p.span_index] = p.pseudonym
    for doc, back in zip(tiny_corpus.documents, loaded.documents):
        text, placed = pseudonymise(doc, preds[doc.doc_id])
        assert back.doc_id == doc.doc_id and back.text == text
        assert [(s.start, s.end) for s in back.spans] == [(r.start, r.end) for r in placed]
