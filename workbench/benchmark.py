"""Named benchmark configurations: corpus × generator × mode × UPOS filter, in one command.

A configuration is a TOML file (shipped ones in workbench/benchmarks/, or any path):

    name = "baselines"
    corpora = ["pgv-pii-en", "tab-test"]
    modes = ["maskL", "repL"]          # default for every generator
    seed = 13
    [[generators]]
    name = "fill-mask"
    upos_filter = [false, true]
    modes = ["maskL"]                  # optional: overrides the default
    options = { model = "offline" }    # the generator's own Config fields
    corpora = ["pgv-pii-en"]           # optional: overrides the default
    docs = "@{cache}/mtc/ss-mtc-en/heldout_docs.txt"   # optional: as --docs ({cache}: the cache
                                       # folder; {here}: this file's folder)
    skip_docs = "doc-1,doc-2"          # optional: as --skip-docs

Every combination becomes one run in the store; rerunning resumes or reuses finished
runs (run ids come from signatures), so a benchmark is cheap to repeat.
"""

from __future__ import annotations

import itertools
import tomllib
from dataclasses import dataclass
from pathlib import Path

from workbench.errors import WorkbenchError

SHIPPED_DIR = Path(__file__).resolve().parent / "benchmarks"


@dataclass(frozen=True, slots=True)
class PlannedRun:
    corpus: str
    generator: str
    mode: str
    upos_filter: bool
    settings: tuple[tuple[str, str], ...]  # generator Config values, as CLI strings
    seed: int
    window: int
    top_k: int
    leak_guard: bool
    docs: str | None = None  # --docs: ids or @file, for a held-out split
    skip_docs: str | None = None  # --skip-docs


@dataclass(frozen=True, slots=True)
class BenchmarkConfig:
    name: str
    description: str
    runs: tuple[PlannedRun, ...]


def shipped_benchmarks() -> list[str]:
    return sorted(p.stem for p in SHIPPED_DIR.glob("*.toml"))


def load_benchmark(name_or_path: str) -> BenchmarkConfig:
    path = Path(name_or_path)
    if not path.exists():
        path = SHIPPED_DIR / f"{name_or_path}.toml"
    if not path.exists():
        raise WorkbenchError(f"no benchmark {name_or_path!r} (shipped: {', '.join(shipped_benchmarks())})")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise WorkbenchError(f"benchmark file {path}: {exc}") from None
    try:
        runs = []
        for g in data["generators"]:
            settings = tuple(sorted((k, str(v)) for k, v in g.get("options", {}).items()))
            corpora = g["corpora"] if "corpora" in g else data["corpora"]
            modes = g.get("modes", data.get("modes", ["maskL"]))
            for corpus, mode, upos in itertools.product(corpora, modes, g.get("upos_filter", [False])):
                runs.append(PlannedRun(corpus, g["name"], mode, bool(upos), settings, int(g.get("seed", data.get("seed", 13))),
                                       int(g.get("window", data.get("window", 2))), int(g.get("top_k", data.get("top_k", 10))),
                                       bool(g.get("leak_guard", data.get("leak_guard", False))),
                                       _expand(g.get("docs"), path), _expand(g.get("skip_docs"), path)))
    except (KeyError, TypeError, ValueError) as exc:
        raise WorkbenchError(f"benchmark file {path}: missing or malformed entry {exc}") from None
    return BenchmarkConfig(data.get("name", path.stem), data.get("description", ""), tuple(runs))


def _expand(spec: str | None, config_path: Path) -> str | None:
    """A document selection with {cache} replaced by the cache folder (where checkpoints keep
    their split files) and {here} by the configuration's folder, so a configuration works
    wherever the cache and the checkout live."""
    if spec is None:
        return None
    from workbench.paths import cache_dir
    return str(spec).replace("{cache}", str(cache_dir())).replace("{here}", str(config_path.resolve().parent))
