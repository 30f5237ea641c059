"""Fixtures shared by every test area.

Each area keeps its own fixtures in its own folder's conftest.py; what lives here is the
common ground: a tiny hand-made corpus, fresh run stores, a store holding real baseline
runs over the shipped corpora, and the Ollama stand-in (tests/llm, tests/intact, tests/privacy).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# Tests share the persistent caches (tag cache, offline models) with the developer's runs
# unless told otherwise; they never write into the working directory's runs.sqlite.
os.environ.setdefault("WORKBENCH_CACHE", str(REPO / ".cache"))

# Two test workers on two cores (pytest -n logical): torch's thread pool in each would take a thread
# per core, four busy threads on two cores, and OpenMP threads spin waiting for each other. Measured
# on the loaded 2-core machine: a fill-mask batch took 8-10 s with two threads per process, 2 s with
# one. Each worker, and every command a test starts, computes on one thread.
if int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > 1:
    os.environ.setdefault("OMP_NUM_THREADS", "1")

# Property tests draw the same examples on every run and keep no example database between
# runs: a test passes or fails on the code, never on which examples chance picked today. No
# clock either: hypothesis fails a test whose example takes over 200 ms (deadline) or whose examples
# take over a second to draw (too_slow), which the alignment property test did on a loaded 2-core
# machine: a failure by the machine's load, not by the code (speed is the benchmarks' to measure).
try:
    from hypothesis import HealthCheck as _HealthCheck
    from hypothesis import settings as _hypothesis_settings
except ImportError:  # hypothesis is in the test extra; without it the property tests are not collected anyway
    pass
else:
    _hypothesis_settings.register_profile("workbench", derandomize=True, database=None, deadline=None,
                                          suppress_health_check=[_HealthCheck.too_slow])
    _hypothesis_settings.load_profile("workbench")


@pytest.fixture
def tiny_corpus():
    """Two short English documents and one Swedish, with entities mentioned twice."""
    from tests.helpers.corpus import make_tiny_corpus
    return make_tiny_corpus()


@pytest.fixture
def store(tmp_path):
    """A fresh, empty RunStore (the object), closed after the test."""
    from workbench.store import RunStore
    s = RunStore(tmp_path / "runs.sqlite")
    yield s
    s.close()


@pytest.fixture(scope="session")
def baseline_store(tmp_path_factory):
    """A store with real runs: random and upos (maskL, UPOS filter on for upos) over
    PGV-PII EN and SV and the first 20 TAB test documents. Session-scoped: read it, do not write."""
    from workbench.data_model import Corpus
    from workbench.loaders import shipped_corpus
    from workbench.pipeline import generate_run
    from workbench.store import RunStore

    path = tmp_path_factory.mktemp("baselines") / "runs.sqlite"
    s = RunStore(path)
    tab = shipped_corpus("tab-test")
    corpora = [shipped_corpus("pgv-pii-en"), shipped_corpus("pgv-pii-sv"),
               Corpus("tab-test-20", tab.source, tab.documents[:20])]
    for corpus in corpora:
        for name, upos in (("random", False), ("upos", True)):
            generate_run(corpus, name, options={"mode": "maskL", "upos_filter": upos}, store=s, tagger="spacy",
                         quiet_tagger=True, progress=False)
    s.close()
    return path


@pytest.fixture(scope="module")
def annotated_store(baseline_store, tmp_path_factory):
    """A copy of the baseline store with a sample over the PGV runs tagged by two simulated
    annotators (tests/helpers/annotation.simulate); for the annotation and the dashboard tests."""
    from tests.helpers.annotation import copy_store, simulate
    path = copy_store(baseline_store, tmp_path_factory.mktemp("annotated"))
    simulate(path)
    return path


@pytest.fixture
def baseline_copy(baseline_store, tmp_path):
    """The path of a writable copy of baseline_store, for a test that adds to its runs."""
    import shutil
    path = tmp_path / "runs.sqlite"
    shutil.copy(baseline_store, path)
    return path


@pytest.fixture(scope="session")
def ray_cluster():
    """The one local Ray cluster of this test process (an xdist worker has its own): two CPUs and two
    `ollama` resources (the LLM tasks' resource, tests/cluster/test_ray_llm.py), started as a job's
    own cluster is (workbench.cluster.own_cluster: every port on 127.0.0.1, a token of its own,
    both gone afterwards). Started by the first test that asks for it, stopped at the end of the
    session, so no process ever runs two; the code under test finds it connected and uses it as it
    is (workbench.cluster.session). Yields the ray module. A test module whose objects must reach the
    workers registers its modules with ray.cloudpickle.register_pickle_by_value: workers cannot
    import tests/."""
    ray = pytest.importorskip("ray")
    from workbench.cluster.own_cluster import own_cluster
    with own_cluster(ray, 2, {"ollama": 2}, lambda line: None):
        yield ray


@pytest.fixture(scope="session")
def offline_en():
    """The trained offline English test MLM (built once by .ci/steps/10-offline-mlm.sh, cached;
    built here explicitly if that step has not run: loading never builds)."""
    from workbench.mlm.offline_build import build_offline_model
    return build_offline_model("en")


@pytest.fixture(scope="session")
def offline_sv():
    """The trained offline Swedish test MLM (see offline_en)."""
    from workbench.mlm.offline_build import build_offline_model
    return build_offline_model("sv")


# Untrained two-layer masked LMs with real tokenizers (tests/helpers/tiny_models.py), for the
# mechanics tests of tests/mlm and tests/mtc; each is built once per session.
@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory):
    from tests.helpers.tiny_models import build_tiny_bert
    return build_tiny_bert(tmp_path_factory.mktemp("tiny-bert"))


@pytest.fixture(scope="session")
def tiny_roberta_en(tmp_path_factory):
    from tests.helpers.tiny_models import build_tiny_roberta
    return build_tiny_roberta(tmp_path_factory.mktemp("tiny-roberta-en"), "en")


@pytest.fixture(scope="session")
def tiny_roberta_sv(tmp_path_factory):
    from tests.helpers.tiny_models import build_tiny_roberta
    return build_tiny_roberta(tmp_path_factory.mktemp("tiny-roberta-sv"), "sv")


# The Ollama stand-in (tests/ollama_standin/): a real small model behind Ollama's HTTP API on a
# free 127.0.0.1 port, with fault modes the tests switch on and off. One process per session,
# shared by every test area that asks an LLM; it answers two requests at once (a model per
# worker, 1 llama.cpp thread each on 2 cores), so tests/llm/test_llm_parallel.py sees requests
# overlap, while tests that send one at a time see no difference.
STANDIN_WORKERS = 2


def standin_launcher():
    """tests/ollama_standin/launch.py, loaded once as the module "ollama_standin_launch"."""
    name = "ollama_standin_launch"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, REPO / "tests" / "ollama_standin" / "launch.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up there
        spec.loader.exec_module(module)
    return sys.modules[name]


def start_standin(workers: int = 1):
    launch = standin_launcher()
    missing = launch.missing_requirements()
    if missing:
        pytest.skip(f"the Ollama stand-in needs {', '.join(missing)}: run `bash .ci/setup tests`")
    threads = os.environ.get("STANDIN_THREADS")  # llama.cpp threads per worker (default: the server's)
    return launch.start(workers=workers, threads=int(threads) if threads else None)


@pytest.fixture(scope="session")
def standin():
    """The shared stand-in. A test that sets a fault uses `healthy`, which resets it."""
    server = start_standin(STANDIN_WORKERS)
    yield server
    server.stop()


@pytest.fixture
def healthy(standin):
    """The shared stand-in with no fault left over from an earlier test, and none left behind."""
    standin.fault("none")
    yield standin
    standin.fault("none")


@pytest.fixture
def own_standin():
    """A stand-in of this test's own (one worker), free to be killed."""
    server = start_standin()
    yield server
    server.stop()


# Fixtures that build a real model on first use (minutes on 2 busy cores): the test that happens to
# ask first pays for the build inside its own time limit, so such tests get a longer one than the
# suite's 600 s (pyproject.toml), unless they set their own.
MODEL_BUILDING_FIXTURES = {"offline_en": 1500, "offline_sv": 1500, "tab_checkpoint": 1800}


def pytest_collection_modifyitems(config, items):
    for item in items:
        limits = [MODEL_BUILDING_FIXTURES[f] for f in getattr(item, "fixturenames", ()) if f in MODEL_BUILDING_FIXTURES]
        if limits and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(max(limits)))
