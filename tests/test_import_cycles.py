"""No import cycles in the workbench package (issue 25).

The graph is that of module-level imports, read from the source with ast: the imports a module
runs when it is imported (at its top, in a class body, under `if`/`try`). Imports inside
functions are lazy and allowed (that is how heavy packages and plug-ins are reached), and so
are those under `if TYPE_CHECKING:`, which never run. An edge goes to the module named, not to
the packages above it: importing a submodule runs its package's __init__ first, but that order
is Python's, not a cycle the code made. A cycle means a module can be imported only in one
order, and whoever imports it the other way meets a half-initialised module.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Source folders of the installed package (pyproject.toml's package-dir maps the top-level ones).
FOLDERS = {"workbench": ROOT / "workbench", "workbench.adapters": ROOT / "adapters",
           "workbench.corpora": ROOT / "corpora", "workbench.annotations": ROOT / "annotations"}


def modules() -> dict[str, Path]:
    found = {}
    for package, folder in FOLDERS.items():
        for path in sorted(folder.rglob("*.py")):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if "__pycache__" in parts:
                continue
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join([package, *parts])] = path
    return found


def imports_run_on_import(tree: ast.Module):
    """The Import / ImportFrom nodes executed when the module is imported."""
    pending = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue  # runs when called
        elif isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            pending.extend(node.orelse)  # the type checker's branch never runs
        else:
            pending.extend(ast.iter_child_nodes(node))


def edges(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    is_package = path.name == "__init__.py"
    out = set()
    for node in imports_run_on_import(ast.parse(path.read_text(encoding="utf-8"))):
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
        out.update(t for t in targets if t in known and t != name)
    return out


def import_graph() -> dict[str, set[str]]:
    known = modules()
    return {name: edges(name, path, known) for name, path in known.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
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


def _path_through(group: set[str], graph: dict[str, set[str]]) -> list[str]:
    """A shortest cycle from the group's first module back to itself (breadth first)."""
    start = min(group)
    came_from = {start: None}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for child in sorted(graph[node] & group):
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


def test_the_graph_is_read_from_every_module():
    graph = import_graph()
    assert "workbench.adapters.ollama" in graph and "workbench.plugins" in graph
    assert "workbench.generators.base" in graph["workbench.generators.registry"]
    assert "workbench.adapters.ollama" not in graph["workbench.generators.registry"]  # a lazy target


def test_the_cycle_finder_finds_a_cycle_and_only_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"d"}}
    assert cycles(graph) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_module_of_the_package_imports_itself_back():
    found = cycles(import_graph())
    assert not found, "import cycles:\n" + "\n".join(" -> ".join(c) for c in found)
