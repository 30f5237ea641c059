"""`workbench runs`: its columns line up whatever the names (issue 24 item 11), and `--ids`
gives scripts the run ids alone."""

from __future__ import annotations

import json

import pytest

from tests.helpers.entry_point import wb
from workbench.views.runs import RUNS_HEADER

TEXT = "Anna Berg lives in Oslo. Anna works in Bergen."
# A corpus named after a long file name, and an imported run with a long --name (its generator).
LONG_CORPUS = "annotated_court_decisions_from_the_2024_export_of_the_project"
LONG_NAME = "presidio-with-custom-recognisers-and-faker-surrogates"


@pytest.fixture(scope="module")
def listed_store(tmp_path_factory):
    """A store with runs over a short and a long corpus name, one imported under a long name."""
    folder = tmp_path_factory.mktemp("runs-list")
    record = {"doc_id": "d1", "text": TEXT, "lang": "en",
              "label": [[0, 9, "PERSON"], [19, 23, "LOC"], [39, 45, "LOC"]]}
    for stem in ("t", LONG_CORPUS):
        (folder / f"{stem}.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    (folder / "system.json").write_text(json.dumps({"d1": [[0, 9, "Eva Lund"], [19, 23, "Umeå"],
                                                           [39, 45, "Luleå"]]}), encoding="utf-8")
    store = folder / "runs.sqlite"
    for args in (("generate", "-c", folder / "t.jsonl", "-g", "random", "--no-progress", "--tagger", "spacy"),
                 ("generate", "-c", folder / f"{LONG_CORPUS}.jsonl", "-g", "upos", "--upos-filter", "--no-progress",
                  "--tagger", "spacy"),
                 ("import-run", folder / "system.json", "-c", folder / f"{LONG_CORPUS}.jsonl", "--name", LONG_NAME,
                  "--tagger", "spacy")):
        done = wb(*args, "--store", store)
        assert done.returncode == 0, done.stderr
    return store


def stored_runs(store):
    from workbench.store import RunStore
    with RunStore(store, create=False) as s:
        return [(r, s.count_predictions(r.run_id)) for r in s.runs()]


def test_columns_start_at_the_same_offsets_whatever_the_names(listed_store):
    result = wb("runs", "--store", listed_store)
    assert result.returncode == 0, result.stderr
    header, *rows = result.stdout.splitlines()
    starts = {name: header.index(name) for name in RUNS_HEADER}
    runs = stored_runs(listed_store)
    assert len(rows) == len(runs) == 3
    assert {r.corpus_name for r, _ in runs} == {"t", LONG_CORPUS} and LONG_NAME in {r.generator for r, _ in runs}
    for (run, done), row in zip(runs, rows):
        cells = {"run_id": run.run_id, "corpus": run.corpus_name, "generator": run.generator,
                 "source": run.source, "mode": run.mode,
                 "upos": "upos=on" if run.upos_filter else "upos=off", "status": run.status}
        for name, value in cells.items():
            assert row[starts[name]:].startswith(value + " "), (name, row)
        # done/slots is right-aligned: it ends where its header ends
        end = starts["done/slots"] + len("done/slots")
        assert row[:end].endswith(f" {done}/{run.n_slots}"), row
        assert row[starts["model"]:].startswith(run.model), row


def test_ids_prints_exactly_the_run_ids_and_filters_like_the_list(listed_store):
    runs = [r for r, _ in stored_runs(listed_store)]
    every = wb("runs", "--ids", "--store", listed_store)
    assert every.returncode == 0, every.stderr
    assert every.stdout.splitlines() == [r.run_id for r in runs]  # no header, nothing else
    only = wb("runs", "--ids", "--corpus", LONG_CORPUS, "--store", listed_store)
    assert only.stdout.splitlines() == [r.run_id for r in runs if r.corpus_name == LONG_CORPUS]
    listed = wb("runs", "--generator", LONG_NAME, "--store", listed_store).stdout.splitlines()
    assert len(listed) == 2 and listed[1].startswith(next(r.run_id for r in runs if r.generator == LONG_NAME))
    none = wb("runs", "--ids", "--corpus", "no-such-corpus", "--store", listed_store)
    assert none.returncode == 0 and none.stdout == "" and "no runs" in none.stderr
    for extra in (("--signatures",), ("--delete", "abc")):  # ids only, and never a deletion by filter
        refused = wb("runs", "--ids", *extra, "--store", listed_store)
        assert refused.returncode == 2 and "--ids" in refused.stderr and "Traceback" not in refused.stderr
