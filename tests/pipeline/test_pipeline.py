"""One library call per generation (workbench.pipeline), and what it refuses before writing:
empty corpora, generators that cannot load, bad benchmark entries; FAILED spans retried."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.helpers.entry_point import WORKBENCH, wb
from tests.helpers.waiting import wait_until
from workbench.data_model import Corpus
from workbench.generator_contract import GenerationOptions, Prediction
from workbench.generator_contract.base import UNREACHABLE, Generator
from workbench.infra.errors import InvalidValue, WorkbenchError
from workbench.pipeline import generate_run, make_options
from workbench.store import RunStore

TESTS = Path(__file__).resolve().parents[2]  # the checkout, on a child's sys.path: tests.helpers.waiting


def rows(store_path, table: str) -> int:
    with sqlite3.connect(store_path) as con:
        return con.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]


def test_generate_run_takes_names_and_reuses_a_finished_run(tiny_corpus, store):
    first = generate_run(tiny_corpus, "upos", options={"mode": "repL", "upos_filter": True}, store=store,
                         tagger="spacy", progress=False)
    assert first.run.status == "complete" and first.stored == tiny_corpus.n_slots and first.failed == 0
    assert first.run.mode == "repL" and first.run.upos_filter and first.run.generator == "upos"
    again = generate_run(tiny_corpus, "upos", options=GenerationOptions(mode="repL", upos_filter=True), store=store,
                         tagger="spacy", progress=False)
    assert again.run_id == first.run_id and len(store.runs()) == 1


@pytest.mark.parametrize("options, message", [
    ({"mode": "maskR"}, "mode must be one of maskL, repL"),
    ({"window": -1}, "window must be >= 0"),
    ({"top_k": 0}, "top_k must be >= 1"),
    ({"seed": "13"}, "seed must be an integer"),
    ({"upos_filter": "no"}, "upos_filter must be true or false"),
    ({"temperature": 1}, "unknown generation option(s) temperature"),
])
def test_bad_options_are_workbench_errors_before_anything_is_stored(tiny_corpus, store, options, message):
    with pytest.raises(WorkbenchError) as caught:
        generate_run(tiny_corpus, "random", options=options, store=store, tagger="spacy", progress=False)
    assert message in str(caught.value)
    assert store.runs() == [] and store.corpora() == []


def test_option_errors_are_also_value_errors_for_python_callers():
    with pytest.raises(ValueError):
        GenerationOptions(mode="nope")
    assert issubclass(InvalidValue, WorkbenchError) and make_options(None) == GenerationOptions()


def test_an_empty_corpus_is_refused_not_stored_as_complete(tiny_corpus, store):
    no_docs = Corpus("empty", "nowhere.jsonl", ())
    with pytest.raises(WorkbenchError, match="has no documents"):
        generate_run(no_docs, "random", store=store, tagger="spacy", progress=False)
    doc = tiny_corpus.documents[0]
    no_spans = Corpus("plain", "plain.jsonl", (type(doc)(doc.doc_id, doc.text, doc.lang, ()),))
    with pytest.raises(WorkbenchError, match="no span to replace"):
        generate_run(no_spans, "random", store=store, tagger="spacy", progress=False)
    assert store.runs() == [] and store.corpora() == []


class CannotLoad(Generator):
    name = "cannot-load"

    def load_for(self, langs):
        raise WorkbenchError(f"no model for {', '.join(langs)}")

    def generate(self, slots):
        raise AssertionError("never called")


def test_a_generator_that_cannot_load_leaves_nothing_in_the_store(tiny_corpus, tmp_path):
    path = tmp_path / "runs.sqlite"
    store = RunStore(path)
    with pytest.raises(WorkbenchError, match="no model for en, sv"):
        generate_run(tiny_corpus, CannotLoad(), store=store, tagger="spacy", progress=False)
    store.close()
    assert rows(path, "runs") == rows(path, "corpora") == rows(path, "predictions") == 0


def test_a_wrong_model_path_leaves_no_running_run(tmp_path):
    """The real CLI with a masked LM path that does not exist: the generator loads (and fails)
    before the corpus or the run is written."""
    path = tmp_path / "runs.sqlite"
    result = wb("generate", "-c", "pgv-pii-en", "-g", "fill-mask",
                "--model", str(tmp_path / "no-such-model"), "--tagger", "spacy", "--no-progress",
                "--store", str(path))
    assert result.returncode == 2 and "no-such-model" in result.stderr and "Traceback" not in result.stderr
    assert rows(path, "runs") == rows(path, "corpora") == 0


class Timed(Generator):
    """Even spans: a measured 0.0 s (an answer reused at no cost); odd spans: not measured."""
    name = "timed"

    def generate(self, slots):
        return [Prediction(("Quentin",), seconds=0.0 if s.span_index % 2 == 0 else None) for s in slots]


def test_a_measured_zero_is_kept_and_unmeasured_seconds_get_the_batch_share(tiny_corpus, store):
    run = generate_run(tiny_corpus, Timed(), store=store, tagger="spacy", progress=False)
    preds = store.predictions(run.run_id)
    assert {p.seconds for p in preds if p.span_index % 2 == 0} == {0.0}
    assert all(p.seconds > 0 for p in preds if p.span_index % 2 == 1)


class Flaky(Generator):
    """Fails the spans in `down` as a server outage would; answers the rest."""
    name = "flaky"

    def __init__(self, down=frozenset()):
        super().__init__(None, GenerationOptions(mode="repL"))
        self.down = down
        self.asked: list[tuple[str, int]] = []

    def generate(self, slots):
        self.asked += [(s.doc_id, s.span_index) for s in slots]
        return [Prediction((), failed=True, note=f"{UNREACHABLE}: connection refused")
                if (s.doc_id, s.span_index) in self.down else Prediction((f"Name{s.span_index}",)) for s in slots]


class Stop(Exception):
    pass


def test_retry_failed_regenerates_only_failed_spans_and_resumes_after_a_kill(tiny_corpus, store):
    keys = [(d.doc_id, i) for d in tiny_corpus.documents for i in d.masked_spans]
    down = frozenset(keys[1::2])
    first = generate_run(tiny_corpus, Flaky(down), store=store, tagger="spacy", progress=False, batch_size=2)
    assert first.failed == first.unreachable == len(down) and first.run.status == "complete"

    # The retry is interrupted after its first batch: nothing is lost or stored twice.
    def stop(n_done):
        raise Stop

    with pytest.raises(Stop):
        generate_run(tiny_corpus, Flaky(), store=store, tagger="spacy", progress=False, batch_size=2,
                     retry_failed=True, after_batch=stop)
    assert store.get_run(first.run_id).status == "running"
    middle = {(p.doc_id, p.span_index): p for p in store.predictions(first.run_id)}
    assert len(middle) == len(keys) - len(down) + 2  # the answered spans, and one retried batch

    # Resumed (with --retry-failed again): only the spans still missing are asked.
    resumed = Flaky()
    done = generate_run(tiny_corpus, resumed, store=store, tagger="spacy", progress=False, batch_size=2,
                        retry_failed=True)
    assert sorted(resumed.asked) == sorted(set(keys) - set(middle))
    assert done.run.status == "complete" and done.failed == done.unreachable == 0
    final = store.predictions(first.run_id)
    assert sorted((p.doc_id, p.span_index) for p in final) == sorted(keys)
    assert all(p.pseudonym == f"Name{p.span_index}" for p in final)


def test_retry_failed_on_a_run_without_failures_changes_nothing(tiny_corpus, store):
    first = generate_run(tiny_corpus, Flaky(), store=store, tagger="spacy", progress=False)
    again = Flaky()
    generate_run(tiny_corpus, again, store=store, tagger="spacy", progress=False, retry_failed=True)
    assert again.asked == [] and store.get_run(first.run_id).finished == first.run.finished


def benchmark_file(tmp_path, second_entry: str):
    path = tmp_path / "bench.toml"
    path.write_text(textwrap.dedent('''\
        name = "checked"
        corpora = ["pgv-pii-en"]
        [[generators]]
        name = "random"
        [[generators]]
        ''') + textwrap.dedent(second_entry), encoding="utf-8")
    return path


@pytest.mark.parametrize("entry, message", [
    ('name = "upos"\nmodes = ["maskR"]\n', "generator 2 (upos): mode must be one of maskL, repL, not 'maskR'"),
    ('name = "upos"\nseed = "thirteen"\n', "seed must be an integer, not 'thirteen'"),
    ('name = "upos"\nupos_filter = ["yes"]\n', "upos_filter must be a non-empty list of bool"),
    ('name = "upos"\nwindow = -1\n', "window must be >= 0"),
    ('name = "upos"\nmode = "repL"\n', "unknown key(s) mode"),
    ('name = "randon"\n', "did you mean 'random'"),
    ('name = "fill-mask"\noptions = { temperature = 1 }\n', "has no option 'temperature'"),
    ('name = "upos"\ncorpora = ["no-such-corpus"]\n', "no shipped corpus 'no-such-corpus'"),
])
def test_a_bad_benchmark_entry_stops_before_the_first_run_is_stored(tmp_path, entry, message):
    store = tmp_path / "runs.sqlite"
    result = wb("benchmark", str(benchmark_file(tmp_path, entry)),
                "--store", str(store), "--no-report", "--no-progress", "--tagger", "spacy")
    assert result.returncode == 2, result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr
    assert not store.exists() or rows(store, "runs") == 0



def test_set_replaces_a_setting_in_every_run_of_that_generator_only(tmp_path):
    from workbench.benchmark.configs import check_benchmark, load_benchmark, with_settings
    config = load_benchmark(str(benchmark_file(tmp_path, 'name = "fill-mask"\nupos_filter = [false, true]\n'
                                                         'options = { model = "offline", max_tokens = 64 }\n')))
    changed = with_settings(config, ["fill-mask.max_tokens=96", "fill-mask.model_sv=/models/sv"])
    fill_mask = [dict(p.settings) for p in changed.runs if p.generator == "fill-mask"]
    assert fill_mask == [{"model": "offline", "max_tokens": "96", "model_sv": "/models/sv"}] * 2
    assert [dict(p.settings) for p in changed.runs if p.generator == "random"] == [{}]
    assert [p.options for p in changed.runs] == [p.options for p in config.runs]
    assert dict(config.runs[1].settings)["max_tokens"] == "64"  # the loaded configuration is left as it was
    generators = {p.planned.generator: p.generator for p in check_benchmark(changed)}
    assert generators["fill-mask"].config.max_tokens == 96 and generators["fill-mask"].config.model_sv == "/models/sv"


@pytest.mark.parametrize("override, message", [
    ("intact.model=qwen2.5:7b", "benchmark checked runs no generator 'intact' (it runs: random, upos)"),
    ("upos.seed", "--set 'upos.seed': expected GENERATOR.NAME=VALUE"),
    ("model=offline", "--set 'model=offline': expected GENERATOR.NAME=VALUE"),
    ("upos.no_such_setting=1", "has no option 'no_such_setting'"),
])
def test_a_bad_set_stops_the_benchmark_before_anything_is_stored(tmp_path, override, message):
    store = tmp_path / "runs.sqlite"
    result = wb("benchmark",
                str(benchmark_file(tmp_path, 'name = "upos"\n')), "--set", override,
                "--store", str(store), "--no-report", "--no-progress", "--tagger", "spacy")
    assert result.returncode == 2, result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr
    assert not store.exists() or rows(store, "runs") == 0

HOLDER = textwrap.dedent('''\
    import sys
    from pathlib import Path
    from workbench.adapters.baselines.random_baseline import RandomBaseline
    from workbench.pipeline import generate_run
    from workbench.store import RunStore

    started, release = Path(sys.argv[2]), Path(sys.argv[3])
    sys.path.insert(0, sys.argv[4])  # the checkout, for tests.helpers.waiting
    from tests.helpers.waiting import wait_until
    plain = RandomBaseline.generate

    def held(self, slots):  # the first batch waits until the test lets it go (or gives up, never for ever)
        if not started.exists():
            started.write_text("generating")
            wait_until(release.exists, 600, "the test's release", interval=0.02)
        return plain(self, slots)

    RandomBaseline.generate = held
    result = generate_run("pgv-pii-en", "random", store=RunStore(sys.argv[1]), tagger="spacy", progress=False)
    print(result.run_id, result.run.status)
    ''')


def wait_for(path, proc, limit=120.0):
    def started() -> bool:
        assert proc.poll() is None, proc.communicate()
        return path.exists()

    wait_until(started, limit, "the holding process to start generating")


def test_a_run_generated_elsewhere_is_refused_and_other_runs_proceed(tmp_path):
    """Two real processes on one store: the same run is refused (exit 2) while a different
    run is generated to the end."""
    store, started, release = tmp_path / "runs.sqlite", tmp_path / "started", tmp_path / "release"
    script = tmp_path / "holder.py"
    script.write_text(HOLDER, encoding="utf-8")
    holder = subprocess.Popen([sys.executable, str(script), str(store), str(started), str(release), str(TESTS)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(started, holder)

        def cli(generator):
            return wb("generate", "-c", "pgv-pii-en", "-g",
                      generator, "--tagger", "spacy", "--no-progress", "--store", str(store))

        same = cli("random")
        assert same.returncode == 2 and "is being generated by process" in same.stderr
        assert "Traceback" not in same.stderr
        other = cli("upos")
        assert other.returncode == 0, other.stderr
        assert "complete: 720 spans" in other.stdout
    finally:
        release.write_text("go")
        out, err = holder.communicate(timeout=300)
    assert holder.returncode == 0, err
    assert out.split()[1] == "complete"
    with sqlite3.connect(store) as con:
        counts = dict(con.execute("SELECT generator, (SELECT COUNT(*) FROM predictions p WHERE p.run_id = runs.run_id) "
                                  "FROM runs").fetchall())
    assert counts == {"random": 720, "upos": 720}


def test_different_runs_started_at_once_on_a_fresh_store_all_finish(tmp_path):
    """Three real `generate` processes started together on a store that does not exist yet:
    each makes its own run; none dies of a race on the schema, the corpus or the tag cache."""
    store = tmp_path / "runs.sqlite"
    variants = [["-g", "random"], ["-g", "random", "--mode", "repL"], ["-g", "upos", "--upos-filter"]]
    procs = [subprocess.Popen([WORKBENCH, "generate", "-c", "pgv-pii-sv", *v,
                               "--tagger", "spacy", "--no-progress", "--store", str(store)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for v in variants]
    results = [(p.wait(timeout=600), p.stderr.read()) for p in procs]
    assert [rc for rc, _ in results] == [0, 0, 0], results
    with sqlite3.connect(store) as con:
        assert con.execute("SELECT COUNT(*), SUM(status = 'complete') FROM runs").fetchone() == (3, 3)
        assert con.execute("SELECT COUNT(*) FROM predictions").fetchone()[0] == 3 * 708
