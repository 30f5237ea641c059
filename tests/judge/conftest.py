"""Fixtures of the judge's tests: a store with one small real run (random baseline over the tiny corpus)."""

from __future__ import annotations

import pytest


@pytest.fixture
def judged_store(tmp_path, tiny_corpus):
    """(AnnotationStore over a fresh store holding a random maskL run of tiny_corpus, its run id)."""
    from workbench.annotation.storage import AnnotationStore
    from workbench.pipeline import generate_run
    from workbench.store import RunStore

    store = RunStore(tmp_path / "runs.sqlite")
    result = generate_run(tiny_corpus, "random", options={"mode": "maskL"}, store=store, tagger="spacy",
                          quiet_tagger=True, progress=False)
    annotations = AnnotationStore(store)
    yield annotations, result.run_id
    store.close()
