"""Several seeds of one configuration (issue 40 item 3): `generate --seeds`, a benchmark's `seeds`,
and the report's mean ± sd across them beside each run's own interval."""

from __future__ import annotations

import numpy as np
import pytest

from tests.metrics.conftest import make_context
from workbench.benchmark.configs import load_benchmark
from workbench.generator_contract.registry import generator_class
from workbench.infra.errors import WorkbenchError
from workbench.metrics import compute_metrics, metric_frame
from workbench.metrics.seed_spread import SEEDS, seed_columns
from workbench.pipeline import generate_run, generate_seed_runs
from workbench.reports.tables import TABLES, cells, ordered_rows, table_notes

SEEDS_RUN = (13, 14, 15)


def test_generators_declare_whether_their_seed_matters():
    assert generator_class("random").stochastic and generator_class("upos").stochastic
    assert generator_class("surrogate").stochastic
    assert not generator_class("fill-mask").stochastic and not generator_class("ns3").stochastic
    from workbench.pipeline import make_generator
    assert make_generator("ollama").draws_with_seed()  # sampled at temperature 0.8 with the run's seed
    assert not make_generator("ollama", {"seed": "7"}).draws_with_seed()  # the client fixes its own seed
    assert not make_generator("ollama", {"temperature": "0"}).draws_with_seed()  # greedy


def test_three_seeds_give_three_runs_and_the_report_their_mean_and_sd(tiny_corpus, store):
    runs = generate_seed_runs(tiny_corpus, "random", options={"mode": "maskL"}, seeds=SEEDS_RUN, store=store,
                              tagger="spacy", progress=False)
    ids = [r.run_id for r in runs.results]
    assert runs.seeds == SEEDS_RUN and runs.note == "" and len(set(ids)) == 3
    assert [r.run.seed for r in runs.results] == list(SEEDS_RUN)
    # Seed 13's run is the run a single-seed generate makes: its id unchanged.
    single = generate_run(tiny_corpus, "random", options={"mode": "maskL", "seed": 13}, store=store, tagger="spacy",
                          progress=False)
    assert single.run_id == ids[0] and len(store.runs()) == 3
    table = compute_metrics(metric_frame(store, ids), make_context(), families=("diversity", "similarity"),
                            originals=False, uncertainty=True)
    varied = 0
    for lang, rows in table.groupby("lang"):
        assert sorted(rows["seed"].astype(int)) == list(SEEDS_RUN)
        assert set(rows[SEEDS]) == {"13,14,15"}
        for metric in ("unique_forms", "similarity_sentence", "similarity_word"):
            stored = rows[metric].to_numpy(dtype=float)
            mean, sd, n = seed_columns(metric)
            assert rows[mean].to_numpy() == pytest.approx([np.mean(stored)] * 3, abs=1e-12), (lang, metric)
            assert rows[sd].to_numpy() == pytest.approx([np.std(stored, ddof=1)] * 3, abs=1e-12), (lang, metric)
            assert (rows[n] == 3).all()
            varied += np.std(stored) > 0
    assert varied  # the seeds drew other forms (Swedish sentence similarity): the spread is not trivially 0
    spec = next(t for t in TABLES if t.name == "table3_quality")
    headers, rows = cells(table, spec)
    mean, sd, _ = seed_columns("similarity_sentence")
    column = len(headers) - len(spec.columns) + [c.metric for c in spec.columns].index("similarity_sentence")
    for (_, row), cells_of_row in zip(ordered_rows(table, spec.originals).iterrows(), rows):
        cell = cells_of_row[column]
        assert cell.startswith(f"{row['similarity_sentence']:.3f}")
        if not np.isnan(row["similarity_sentence_low"]):  # the run's own interval (a language of one document: none)
            assert f"[{row['similarity_sentence_low']:.3f}, {row['similarity_sentence_high']:.3f}]" in cell
        assert cell.endswith(f" · {row[mean]:.3f} ± {row[sd]:.3f} over 3 seeds"), cell
    assert "across those seeds" in table_notes(table, spec)


def test_a_single_run_gets_no_seed_columns(tiny_corpus, store):
    run = generate_run(tiny_corpus, "random", store=store, tagger="spacy", progress=False)
    table = compute_metrics(metric_frame(store, [run.run_id]), make_context(), families=("diversity",),
                            originals=False, uncertainty=True)
    assert SEEDS not in table and not any(c.endswith("_seeds_mean") for c in table.columns)


def test_a_deterministic_generator_runs_once_and_says_so(tiny_corpus, store, monkeypatch):
    # The random baseline declared deterministic stands in for a masked LM (no model to load here).
    monkeypatch.setattr(generator_class("random"), "stochastic", False)
    runs = generate_seed_runs(tiny_corpus, "random", seeds=SEEDS_RUN, store=store, tagger="spacy", progress=False)
    assert runs.seeds == (13,) and len(runs.results) == 1 and len(store.runs()) == 1
    assert runs.note == ("random is deterministic (its seed changes no pseudonym): run once, with seed 13, "
                         "not once per seed of 13, 14, 15")


@pytest.mark.parametrize("seeds, message", [
    ([], "seeds must be a non-empty list of integers"),
    ([13, 13], "seed 13 given twice"),
    ([13, "14"], "seeds must be integers, not '14'"),
    ([13, 2**63], "is outside"),
])
def test_bad_seeds_are_refused_before_anything_is_stored(tiny_corpus, store, seeds, message):
    with pytest.raises(WorkbenchError, match=message):
        generate_seed_runs(tiny_corpus, "random", seeds=seeds, store=store, tagger="spacy", progress=False)
    assert store.runs() == []


def test_generate_seeds_on_the_command_line(tmp_path):
    # In this process (the console script's start costs seconds a call; test_cli_print_id runs it).
    from click.testing import CliRunner

    from workbench.cli import main
    store = tmp_path / "s.sqlite"
    args = ["generate", "-c", "tab-test", "--docs", "001-61807", "-g", "random", "--tagger", "spacy",
            "--store", str(store), "--no-progress"]
    for bad, says in (("13,x", "--seeds '13,x': 'x' is not an integer"), ("13,13", "seed 13 given twice"),
                      ("", "is not an integer"), ("13,14 --seed 14", "--seed and --seeds contradict")):
        value, *more = bad.split(" ", 1)
        result = CliRunner().invoke(main, [*args, "--seeds", value, *(more[0].split() if more else [])])
        assert result.exit_code == 2 and says in result.stderr, (bad, result.output)
        assert "Traceback" not in result.output
    assert not store.exists()  # nothing stored, not even the file
    made = CliRunner().invoke(main, [*args, "--seeds", "13, 14", "--print-id"])
    assert made.exit_code == 0, made.output
    ids = made.stdout.split()  # one run id a line, the summaries on stderr
    assert len(ids) == 2 and len(set(ids)) == 2
    single = CliRunner().invoke(main, [*args, "--seed", "13"])
    assert f"run {ids[0]} complete" in single.stdout  # seed 13's run: the id a single-seed run has


def benchmark_file(tmp_path, body: str):
    path = tmp_path / "seeds.toml"
    path.write_text('name = "seeds"\ncorpora = ["pgv-pii-en"]\n' + body, encoding="utf-8")
    return str(path)


def test_a_benchmark_runs_each_stochastic_entry_once_per_seed(tmp_path, monkeypatch):
    monkeypatch.setattr(generator_class("upos"), "stochastic", False)  # stands in for a deterministic one
    config = load_benchmark(benchmark_file(tmp_path, 'seeds = [13, 14, 15]\n[[generators]]\nname = "random"\n'
                                                     'upos_filter = [false, true]\n[[generators]]\nname = "upos"\n'))
    random = [(p.upos_filter, p.seed) for p in config.runs if p.generator == "random"]
    assert random == [(False, 13), (False, 14), (False, 15), (True, 13), (True, 14), (True, 15)]
    assert [p.seed for p in config.runs if p.generator == "upos"] == [13]
    assert config.notes == ("upos is deterministic (its seed changes no pseudonym): run once, with seed 13, "
                            "not once per seed of 13, 14, 15",)
    # An entry's own seed or seeds win over the file's.
    own = load_benchmark(benchmark_file(tmp_path, 'seeds = [13, 14]\n[[generators]]\nname = "upos"\nseed = 7\n'
                                                  '[[generators]]\nname = "random"\nseeds = [1, 2]\n'))
    assert [(p.generator, p.seed) for p in own.runs] == [("upos", 7), ("random", 1), ("random", 2)]
    # Without seeds, the runs (and so their ids) are those of before.
    assert [p.seed for p in load_benchmark("baselines").runs] == [13] * 6


@pytest.mark.parametrize("body, message", [
    ('seed = 13\nseeds = [13, 14]\n[[generators]]\nname = "random"\n', "gives both seed and seeds"),
    ('seeds = [13, 13]\n[[generators]]\nname = "random"\n', "seed 13 given twice"),
    ('seeds = "13,14"\n[[generators]]\nname = "random"\n', "seeds must be a non-empty list"),
])
def test_a_bad_seeds_entry_names_the_file(tmp_path, body, message):
    with pytest.raises(WorkbenchError, match=message) as caught:
        load_benchmark(benchmark_file(tmp_path, body))
    assert "seeds.toml" in str(caught.value)
