"""Helpers for the store tests (tests/test_store_*.py, tests/test_export_*.py): small runs made fast."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.metrics.conftest import WordListTagger


def import_replacements(store, tmp_path: Path, corpus, replace=lambda s: s.text[::-1], name="ext"):
    """A complete run over `corpus` whose replacements are `replace(span)` (via the importer)."""
    from workbench.importers import import_run
    data = {d.doc_id: [[s.start, s.end, replace(s)] for s in d.spans if s.mask] for d in corpus.documents}
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return import_run(store, path, corpus, tagger=WordListTagger(), name=name)


def generated_run(store, corpus, seed=1):
    """A complete random-baseline run (the engine's path, with the fast word-list tagger)."""
    from workbench.engine import run_generation
    from workbench.generators import GenerationOptions, create_generator
    return run_generation(store, corpus, create_generator("random", options=GenerationOptions(seed=seed)),
                          WordListTagger(), progress=False)


def workbench(*args, cwd=None) -> subprocess.CompletedProcess:
    """The CLI through the interpreter's own entry point."""
    return subprocess.run([sys.executable, "-m", "workbench.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd)
