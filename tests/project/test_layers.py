"""The package's layers, and no import that runs upward or round in a cycle (issues 25 and 38).

The layers are CONTRIBUTING.md's table (the fenced block marked `layers`), read here, so the
document and the test cannot drift: a module imports only modules of its own layer and of the
layers listed before it. The graph is read from the source with ast and counts every import a
module can run: at its top, in a class body, under `if`/`try`, and inside functions (a lazy
import still runs, and a cycle closed by one is a cycle: whoever imports the other way first
meets a half-initialised module, or a layer that knows what sits above it). Imports under
`if TYPE_CHECKING:` never run and are left out. An edge goes to the module named, not to the
packages above it: importing a submodule runs its package's __init__ first, but that order is
Python's, not a dependency the code made.

A plug-in registry names its implementations as `module:Class` strings, loaded on demand, so a
contract never imports what implements it; those strings are not imports and are not edges.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Source folders of the installed package (pyproject.toml's package-dir maps the top-level ones).
FOLDERS = {"workbench": ROOT / "workbench", "workbench.adapters": ROOT / "adapters",
           "workbench.corpora": ROOT / "corpora", "workbench.annotations": ROOT / "annotations"}
# Upward imports inside functions kept on purpose, each with its reason. Keep it short: an entry
# here is a layer that knows what sits above it.
LAZY_UPWARD_ALLOWED: dict[tuple[str, str], str] = {}


def modules(folders: dict[str, Path] = FOLDERS) -> dict[str, Path]:
    found = {}
    for package, folder in folders.items():
        for path in sorted(folder.rglob("*.py")):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if "__pycache__" in parts:
                continue
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join([package, *parts])] = path
    return found


def imports_of(tree: ast.Module, *, lazy: bool = True):
    """The Import / ImportFrom nodes that can run: all but the type checker's (lazy=False: only
    those run when the module is imported, not those inside functions)."""
    pending = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, False
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            if lazy:
                for inner in ast.walk(node):
                    if isinstance(inner, (ast.Import, ast.ImportFrom)) and not _type_checking_only(node, inner):
                        yield inner, True
        elif isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            pending.extend(node.orelse)  # the type checker's branch never runs
        else:
            pending.extend(ast.iter_child_nodes(node))



def _type_checking_only(function: ast.AST, target: ast.AST) -> bool:
    """Is `target` under an `if TYPE_CHECKING:` inside `function`?"""
    for node in ast.walk(function):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            if any(inner is target for stmt in node.body for inner in ast.walk(stmt)):
                return True
    return False


def edges(name: str, path: Path, known: dict[str, Path], *, lazy: bool = True) -> dict[str, bool]:
    """Modules `name` imports → whether every such import is inside a function (lazy)."""
    is_package = path.name == "__init__.py"
    out: dict[str, bool] = {}
    for node, inside in imports_of(ast.parse(path.read_text(encoding="utf-8")), lazy=lazy):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:
                anchor = name.split(".")
                anchor = anchor if is_package else anchor[:-1]
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        for target in targets:
            if target in known and target != name:
                out[target] = out.get(target, True) and inside
    return out


def import_graph(folders: dict[str, Path] = FOLDERS, *, lazy: bool = True) -> dict[str, dict[str, bool]]:
    known = modules(folders)
    return {name: edges(name, path, known, lazy=lazy) for name, path in known.items()}


def read_layers(text: str) -> list[tuple[str, list[str]]]:
    """CONTRIBUTING's layer table: (layer, module prefixes under workbench.) from the bottom up."""
    block = re.search(r"^```layers\n(.*?)^```", text, re.MULTILINE | re.DOTALL)
    assert block, "CONTRIBUTING.md has no ```layers block"
    layers = []
    for line in block.group(1).splitlines():
        line = line.split("#")[0].strip()
        if line:
            layer, names = line.split(":", 1)
            layers.append((layer.strip(), [f"workbench.{n}" for n in names.split()]))
    return layers


def layer_of(module: str, layers: list[tuple[str, list[str]]]) -> int | None:
    """The index of the layer whose longest prefix names `module`; the bare package (its version)
    is a foundation; None for a module of no layer."""
    if module == "workbench":
        return 0
    best: tuple[int, int] | None = None
    for index, (_, prefixes) in enumerate(layers):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and (best is None or len(prefix) > best[1]):
                best = (index, len(prefix))
    return None if best is None else best[0]


def upward_edges(graph: dict[str, dict[str, bool]], layers, allowed=LAZY_UPWARD_ALLOWED) -> list[str]:
    found = []
    for source, targets in sorted(graph.items()):
        for target, lazy in sorted(targets.items()):
            below, above = layer_of(source, layers), layer_of(target, layers)
            if below is not None and above is not None and above > below \
                    and not (lazy and (source, target) in allowed):
                found.append(f"{source} ({layers[below][0]}) imports {target} ({layers[above][0]})"
                             + (" inside a function" if lazy else ""))
    return found


def cycles(graph) -> list[list[str]]:
    """One cycle (a path that returns to its start) for each strongly connected group of modules."""
    index, low, on_stack, stack, groups = {}, {}, set(), [], []

    def visit(start: str) -> None:  # Tarjan's algorithm, iterative (the graph is deep)
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(set(group))

    for name in sorted(graph):
        if name not in index:
            visit(name)
    return [_path_through(group, graph) for group in groups]


def _path_through(group: set[str], graph) -> list[str]:
    """A shortest cycle from the group's first module back to itself (breadth first)."""
    start = min(group)
    came_from = {start: None}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for child in sorted(set(graph[node]) & group):
                if child == start:
                    path = [node]
                    while came_from[path[-1]] is not None:
                        path.append(came_from[path[-1]])
                    return [*reversed(path), start]
                if child not in came_from:
                    came_from[child] = node
                    following.append(child)
        frontier = following
    raise AssertionError(f"no cycle through {start}")


LAYERS = read_layers((ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8"))


@functools.cache
def package_graph() -> dict[str, dict[str, bool]]:
    """The package's graph, read once per process (the tests below share it)."""
    return import_graph()


def test_the_graph_is_read_from_every_module_and_inside_functions():
    graph = package_graph()
    assert "workbench.adapters.ollama" in graph and "workbench.infra.plugins" in graph
    assert graph["workbench.generator_contract.registry"]["workbench.generator_contract.base"] is False  # at the top
    assert "workbench.adapters.ollama" not in graph["workbench.generator_contract.registry"]  # a lazy target's string
    lazy = {target for targets in graph.values() for target, inside in targets.items() if inside}
    assert lazy, "no import inside a function was read"


def test_every_module_is_in_one_layer():
    missing = [name for name in package_graph() if layer_of(name, LAYERS) is None]
    assert not missing, ("modules in no layer of CONTRIBUTING.md's ```layers table: " + ", ".join(missing))


def test_no_module_imports_a_layer_above_its_own():
    found = upward_edges(package_graph(), LAYERS)
    assert not found, "imports that run upward (CONTRIBUTING.md, 'Layers'):\n" + "\n".join(found)


def test_no_module_of_the_package_imports_itself_back_even_lazily():
    found = cycles(package_graph())
    assert not found, "import cycles:\n" + "\n".join(" -> ".join(c) for c in found)


def test_every_allowed_lazy_import_still_exists_and_runs_upward():
    graph = package_graph()
    for (source, target), why in LAZY_UPWARD_ALLOWED.items():
        assert graph.get(source, {}).get(target) is True, f"{source} -> {target} ({why}) is gone: drop its entry"
        assert layer_of(target, LAYERS) > layer_of(source, LAYERS), f"{source} -> {target} is not upward"


def test_the_cycle_finder_finds_a_cycle_and_only_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"d"}}
    assert cycles(graph) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def _planted(tmp_path: Path, files: dict[str, str]) -> dict[str, Path]:
    for relative, source in files.items():
        path = tmp_path / "workbench" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding="utf-8")
    return {"workbench": tmp_path / "workbench"}


def test_a_planted_upward_import_inside_a_function_is_caught(tmp_path):
    folders = _planted(tmp_path, {
        "__init__.py": "",
        "errors.py": "def hint():\n    from workbench.cli.generate import HELP\n    return HELP\n",
        "cli/__init__.py": "",
        "cli/generate.py": "from workbench.errors import hint\nHELP = 'x'\n",
    })
    layers = [("foundations", ["workbench.errors"]), ("interfaces", ["workbench.cli"])]
    found = upward_edges(import_graph(folders), layers)
    assert found == ["workbench.errors (foundations) imports workbench.cli.generate (interfaces) inside a function"]
    # The same import at the top is caught too, and not called lazy.
    (folders["workbench"] / "errors.py").write_text("from workbench.cli.generate import HELP\n", encoding="utf-8")
    assert upward_edges(import_graph(folders), layers) == [
        "workbench.errors (foundations) imports workbench.cli.generate (interfaces)"]
    # An entry of the allow-list lets only an import inside a function through.
    allowed = {("workbench.errors", "workbench.cli.generate"): "planted"}
    assert upward_edges(import_graph(folders), layers, allowed)


def test_a_planted_deferred_cycle_is_caught(tmp_path):
    folders = _planted(tmp_path, {
        "__init__.py": "",
        "store.py": "from workbench.upos import Tagger\n",
        "upos.py": ("class Tagger:\n    def cache(self):\n        import workbench.store\n"
                    "        return workbench.store\n"),
        "typing_only.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import workbench.store\n",
    })
    assert cycles(import_graph(folders, lazy=False)) == []  # what the module-level reader saw
    assert cycles(import_graph(folders)) == [["workbench.store", "workbench.upos", "workbench.store"]]
    assert import_graph(folders)["workbench.typing_only"] == {}


@pytest.mark.parametrize("module, layer", [
    ("workbench.prediction_notes", "foundations"), ("workbench.text.dates", "text"), ("workbench.store.cache", "store"),
    ("workbench.adapters.intact.generator", "generators"), ("workbench.cli.generate", "interfaces")])
def test_the_table_places_modules_by_their_longest_prefix(module, layer):
    assert LAYERS[layer_of(module, LAYERS)][0] == layer
