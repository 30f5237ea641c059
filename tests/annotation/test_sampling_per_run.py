"""Sampling honours "spans per run" (issue 42: the Annotate page drew 150 pseudonyms for 10 per run,
as whole documents of some 70 spans were taken): document sampling takes documents from their
start, the last one cut, so each run gives exactly what was asked, or all it has and says so."""

from __future__ import annotations

import pytest

from tests.helpers.entry_point import wb
from workbench.annotation.sampling import SampleRecipe, draw_sample, shortfalls
from workbench.pipeline import generate_run
from workbench.store import RunStore


@pytest.fixture
def two_runs(tmp_path, tiny_corpus):
    """A store with two random runs (seeds 1, 2) of tiny_corpus: documents of 10, 4 and 7 spans."""
    store = RunStore(tmp_path / "runs.sqlite")
    runs = [generate_run(tiny_corpus, "random", options={"mode": "maskL", "seed": seed}, store=store,
                         tagger="spacy", quiet_tagger=True, progress=False).run_id for seed in (1, 2)]
    yield store, runs
    store.close()


@pytest.mark.parametrize("per_run", [1, 5, 12])  # within the first document, and across documents
def test_document_sampling_gives_each_run_exactly_the_spans_asked(two_runs, per_run):
    store, runs = two_runs
    items = draw_sample(store, SampleRecipe(tuple(runs), per_run, "document", 0))
    by_run = {r: [(it.doc_id, it.span_index) for it in items if it.run_id == r] for r in runs}
    assert [len(keys) for keys in by_run.values()] == [per_run, per_run]
    assert by_run[runs[0]] == by_run[runs[1]]  # both runs judged on the same text
    # Each document read from its start: its spans are 0, 1, … with no gap, and only one is cut.
    spans = {d: [i for doc, i in by_run[runs[0]] if doc == d] for d, _ in by_run[runs[0]]}
    assert all(indices == list(range(len(indices))) for indices in spans.values())
    whole = {d.doc_id: len(d.spans) for d in store.load_corpus(store.get_run(runs[0]).corpus_hash).documents}
    assert sum(len(indices) < whole[d] for d, indices in spans.items()) <= 1
    assert shortfalls(per_run, runs, items) == []


def test_a_run_with_fewer_spans_than_asked_gives_all_and_says_so(two_runs):
    store, runs = two_runs
    items = draw_sample(store, SampleRecipe(tuple(runs), 100, "document", 0))
    assert len(items) == 2 * 21
    lines = shortfalls(100, runs, items)
    assert len(lines) == 2 and all("gave 21 of the 100 pseudonyms asked" in line for line in lines)
    result = wb("annotations", "sample", "s", "-r", runs[0][:8], "--per-run", "30", store=store.path)
    assert result.returncode == 0 and "sample s: 21 pseudonyms" in result.stdout
    assert f"warning: run {runs[0][:8]} gave 21 of the 30 pseudonyms asked" in result.stderr
