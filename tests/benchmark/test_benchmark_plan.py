"""A benchmark says how big it is before it starts, asks above a size, and keeps its report under
out/ (issue 24 item 18: 1,000 fill-mask runs started at once; `name = "../../x"` wrote outside out/)."""

from __future__ import annotations

import json

import pytest

from tests.helpers.entry_point import wb
from tests.helpers.store import generated_run
from workbench.benchmark.configs import PlannedRun, PreparedRun, load_benchmark, run_benchmark
from workbench.benchmark.plan import ASK_ABOVE_RUNS, PlanSize, duration, plan_size
from workbench.generator_contract.base import GenerationOptions
from workbench.infra.errors import WorkbenchError


def many_runs(tmp_path, n: int, generator: str, name: str = "big"):
    """A benchmark file of n runs: one [[generators]] entry per seed."""
    entries = "".join(f'[[generators]]\nname = "{generator}"\nseed = {seed}\n' for seed in range(n))
    path = tmp_path / f"{name}.toml"
    path.write_text(f'name = "{name}"\ncorpora = ["pgv-pii-en"]\n' + entries, encoding="utf-8")
    return path


def test_a_plan_above_the_threshold_needs_yes_without_a_terminal_and_starts_nothing(tmp_path):
    store = tmp_path / "runs.sqlite"
    result = wb("benchmark", many_runs(tmp_path, ASK_ABOVE_RUNS + 1, "random"), "--store", store, "--no-progress",
                "--tagger", "spacy")  # stdin is not a terminal here
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert f"plan: {ASK_ABOVE_RUNS + 1} run(s)" in result.stderr and " s here" in result.stderr
    assert "nothing started" in result.stderr and "pass --yes" in result.stderr
    assert not store.exists()


def test_declining_starts_nothing_and_creates_no_store(tmp_path):
    asked = []
    store = tmp_path / "runs.sqlite"
    results = run_benchmark(load_benchmark(str(many_runs(tmp_path, 3, "random"))), store=store, tagger="spacy",
                            progress=False, confirm=lambda plan: asked.append(plan) or False)
    assert results is None and not store.exists()
    assert asked[0].runs == 3 and not asked[0].needs_confirmation


def test_a_thousand_fill_mask_runs_are_estimated_in_days():
    from workbench.loaders import load_corpus
    corpus = load_corpus("tab-test")
    planned = [PreparedRun(PlannedRun("tab-test", "fill-mask", GenerationOptions(seed=seed), ()), corpus, None)
               for seed in range(1000)]
    plan = plan_size(planned)
    assert plan.runs == 1000 and plan.spans == 1000 * corpus.n_slots and plan.needs_confirmation
    assert plan.seconds == pytest.approx(1000 * corpus.n_slots / 30.0)  # the fallback rate: 30 spans/s
    assert "days here" in plan.line()


def test_the_estimate_takes_the_generators_rate_from_the_store(store, tiny_corpus):
    run = generated_run(store, tiny_corpus)
    store.db.execute("UPDATE predictions SET seconds = 0.5 WHERE run_id = ?", (run.run_id,))  # 2 spans/s
    planned = [PreparedRun(PlannedRun("tiny", name, GenerationOptions(), ()), tiny_corpus, None)
               for name in ("random", "random", "ollama")]
    plan = plan_size(planned, store)
    assert plan.seconds == pytest.approx(2 * tiny_corpus.n_slots / 2.0)
    assert plan.unestimated == ("ollama",) and "plus the runs of ollama" in plan.line()
    assert plan.spans == 3 * tiny_corpus.n_slots


@pytest.mark.parametrize("seconds, text", [(42, "42 s"), (600, "10 min"), (5 * 3600, "5.0 h"),
                                           (9.5 * 86400, "9.5 days")])
def test_durations_read_in_the_unit_that_suits_them(seconds, text):
    assert duration(seconds) == text


def test_twelve_hours_ask_even_for_few_runs():
    assert PlanSize(2, 10, 13 * 3600.0).needs_confirmation and not PlanSize(2, 10, 3600.0).needs_confirmation


@pytest.mark.parametrize("name", ["../../x", "/etc", "a/b", "..", ".hidden", "", "x\ny", "-x"])
def test_a_benchmark_name_that_is_not_plain_is_refused(tmp_path, name):
    path = tmp_path / "named.toml"
    # A JSON string is a TOML basic string (same escapes).
    path.write_text(f'name = {json.dumps(name)}\ncorpora = ["pgv-pii-en"]\n[[generators]]\nname = "random"\n',
                    encoding="utf-8")
    with pytest.raises(WorkbenchError, match="is not a plain name"):
        load_benchmark(str(path))


def test_a_path_as_name_writes_nothing_outside_out(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    path = work / "escape.toml"
    path.write_text('name = "../../x"\ncorpora = ["pgv-pii-en"]\n[[generators]]\nname = "random"\n',
                    encoding="utf-8")
    result = wb("benchmark", path, "--store", work / "runs.sqlite", "--no-progress", "--tagger", "spacy", cwd=work)
    assert result.returncode == 2 and "'../../x' is not a plain name" in result.stderr, result.stderr
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["escape.toml", "work"]


def test_plain_names_are_kept():
    assert load_benchmark("baselines").name == "baselines"


def test_the_fallback_rates_are_the_generators_own_and_the_llms_have_none():
    """Each generator class declares its rate (spans_per_second_estimate) beside its code, not in a
    list in plan.py that a new generator would have to be added to; the values the plan had as a
    dict (issue 38), and none for the LLM generators, whose speed is the server's."""
    from workbench.benchmark.plan import fallback_spans_per_second
    from workbench.generator_contract.registry import GENERATORS
    assert fallback_spans_per_second(GENERATORS.names()) == {
        "random": 2000.0, "upos": 2000.0, "surrogate": 500.0, "fill-mask": 30.0,
        "ns3": 10.0, "nad": 10.0, "mtc": 30.0, "ss-mtc": 30.0}
    assert GENERATORS.load("ollama").spans_per_second_estimate is None
    assert fallback_spans_per_second(["no-such-generator"]) == {}
