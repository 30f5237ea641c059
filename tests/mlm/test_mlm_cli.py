"""The masked-LM generators through the real `workbench` entry point."""

from __future__ import annotations

import json

import pytest

from tests.helpers.entry_point import wb

pytestmark = pytest.mark.slow


def excerpt_file(path, name: str, docs: int, chars: int):
    """The first `docs` documents of a shipped corpus, each cut to about `chars` characters,
    as a doccano JSONL file (the full corpora run in docs/mlm.md; this keeps the test short)."""
    from workbench.loaders import shipped_corpus
    lines = []
    for d in shipped_corpus(name).documents[:docs]:
        end = next((s.start for s in d.spans if s.end > chars), len(d.text))
        spans = [[s.start, s.end, s.label] for s in d.spans if s.end <= end]
        lines.append(json.dumps({"doc_id": d.doc_id, "text": d.text[:end], "label": spans, "lang": d.lang}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_fill_mask_run_from_the_cli_is_stored(tmp_path, offline_en, offline_sv):
    store = tmp_path / "runs.sqlite"
    for name, mode in (("pgv-pii-en", "maskL"), ("pgv-pii-sv", "repL")):
        corpus = excerpt_file(tmp_path / f"{name}.jsonl", name, 2, 1500)
        out = wb("generate", "-c", str(corpus), "-g", "fill-mask", "--model", "offline", "--mode", mode,
                 "--upos-filter", "--leak-guard", "--store", str(store), "--no-progress")
        assert out.returncode == 0, out.stderr
        assert "complete" in out.stdout
    from workbench.store import RunStore
    runs = RunStore(store).runs()
    assert sorted((r.corpus_name, r.mode, r.upos_filter) for r in runs) == [("pgv-pii-en", "maskL", True),
                                                                           ("pgv-pii-sv", "repL", True)]
    assert all(r.status == "complete" and r.model.startswith("en=offline-en-") for r in runs)


def test_the_paper_model_that_cannot_load_names_the_offline_model(tmp_path):
    out = wb("generate", "-c", "pgv-pii-en", "-g", "fill-mask", "--store", str(tmp_path / "s.sqlite"),
             "--no-progress")
    assert out.returncode == 2
    assert "FacebookAI/roberta-large" in out.stderr and "--model offline" in out.stderr
    assert "Traceback" not in out.stderr


def test_mlm_info_lists_both_models(offline_en, offline_sv):
    out = wb("mlm", "info")
    assert out.returncode == 0 and str(offline_en) in out.stdout and str(offline_sv) in out.stdout
