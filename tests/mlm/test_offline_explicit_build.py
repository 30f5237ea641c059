"""Building the offline MLMs is explicit (issue 11 item 5).

Loading `--model offline` once trained a model for minutes inside a generator's load,
through a hidden import cycle (loading → offline → train → evaluate → loading). Now only
`workbench mlm build-offline` and `Generator.build_missing` (which `generate` and `benchmark`
call before a run starts; workbench.mlm.offline_build) train; a load of a missing model fails
at once with that command.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from click.testing import CliRunner

import workbench.mlm
from workbench.generator_contract import GenerationOptions, create_generator
from workbench.infra.errors import WorkbenchError

MLM_DIR = Path(workbench.mlm.__file__).parent


@pytest.fixture
def empty_cache(tmp_path, monkeypatch):
    """A cache without offline models, and a trainer that fails the test if anything calls it."""
    import workbench.mlm.train_offline

    def no_training(*args, **kwargs):
        raise AssertionError("a load started training an offline model")
    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(workbench.mlm.train_offline, "build_model", no_training)
    return tmp_path / "cache"


def test_a_generator_load_of_a_missing_offline_model_names_the_build_command(empty_cache):
    gen = create_generator("fill-mask", {"model": "offline"}, GenerationOptions())
    gen.load()
    with pytest.raises(WorkbenchError, match="`workbench mlm build-offline --lang sv`"):
        gen.lm("sv")
    assert not (empty_cache / "mlm").exists()  # nothing started, nothing half-built


def test_generate_builds_a_missing_offline_model_first_and_stores_nothing_if_the_build_fails(tmp_path, monkeypatch):
    """A load never trains, but `generate` builds the models its run names before it starts (issue 36:
    built where used, its build line saying what it costs); a build that fails leaves no run."""
    import workbench.mlm.train_offline
    from workbench.cli import main
    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path / "cache"))
    asked = []

    def failing_build(*args, **kwargs):
        asked.append(args)
        raise WorkbenchError("the test stops the build here (the real one takes minutes)")
    monkeypatch.setattr(workbench.mlm.train_offline, "build_model", failing_build)
    result = CliRunner().invoke(main, ["generate", "-c", "pgv-pii-en", "--docs", "gv-eng-swe-105_ENG",
                                       "-g", "fill-mask", "--model", "offline",
                                       "--store", str(tmp_path / "runs.sqlite")])
    assert result.exit_code == 2, result.output
    assert "building the offline en MLM" in result.output and "the test stops the build" in result.output
    assert len(asked) == 1  # English only: the corpus is English
    from workbench.store import RunStore
    if (tmp_path / "runs.sqlite").exists():
        store = RunStore(tmp_path / "runs.sqlite")
        assert store.runs() == []
        store.close()


def _imports(path: Path) -> set[str]:
    """Every workbench.mlm module a file imports, at module level or inside functions."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return {m for m in found if m.startswith("workbench.mlm.") and (MLM_DIR / f"{m.split('.')[2]}.py").is_file()}


def test_the_mlm_modules_import_one_way():
    graph = {f"workbench.mlm.{p.stem}": {".".join(m.split(".")[:3]) for m in _imports(p)} - {f"workbench.mlm.{p.stem}"}
             for p in MLM_DIR.glob("*.py")}
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        assert module not in path, "import cycle: " + " → ".join(path[path.index(module):] + (module,))
        if module in done:
            return
        for other in sorted(graph.get(module, ())):
            visit(other, path + (module,))
        done.add(module)
    for module in sorted(graph):
        visit(module, ())
    # Loading a model reaches neither the trainer nor the builder.
    reach, todo = set(), ["workbench.mlm.loading"]
    while todo:
        for other in graph.get(todo.pop(), ()):
            if other not in reach:
                reach.add(other)
                todo.append(other)
    assert not reach & {"workbench.mlm.train_offline", "workbench.mlm.offline_build", "workbench.mlm.evaluate"}
