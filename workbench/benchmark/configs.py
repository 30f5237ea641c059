"""Named benchmark configurations: corpus × generator × mode × UPOS filter, in one command.

A configuration is a TOML file (shipped ones in workbench/benchmark/suites/, or any path):

    name = "baselines"
    corpora = ["pgv-pii-en", "tab-test"]
    modes = ["maskL", "repL"]          # default for every generator
    seed = 13
    seeds = [13, 14, 15]               # optional, instead of seed (here or in a generator's table):
                                       # one run per seed of each stochastic generator, for the
                                       # report's mean ± sd across seeds; a deterministic one
                                       # (Generator.draws_with_seed) runs once, with the first seed,
                                       # and the benchmark says so
    [[generators]]
    name = "fill-mask"
    upos_filter = [false, true]
    consistent = ["off", "document"]   # optional: one run per value (default "off")
    modes = ["maskL"]                  # optional: overrides the default
    options = { model = "offline" }    # the generator's own Config fields
    corpora = ["pgv-pii-en"]           # optional: overrides the default
    docs = "@{cache}/mtc/ss-mtc-en/heldout_docs.txt"   # optional: as --docs ({cache}: the cache
                                       # folder; {here}: this file's folder)
    skip_docs = "doc-1,doc-2"          # optional: as --skip-docs
    run_name = "fill-mask offline"     # optional: as --name (the runs' name in reports; `name`
                                       # is the generator's). Runs of one entry that share a
                                       # corpus are told apart in reports by what differs.

    # optional, top level: the privacy half (workbench/benchmark/privacy.py)
    references = ["original", "suppress", "label"]   # reference runs of every corpus (workbench reference)
    reid = ["retrieval"]               # re-identification attacks on every run of a corpus that
                                       # ships background knowledge (workbench privacy reid)
    infer = { attacker = "mlm", model = "offline", n = 5, docs = 2 }   # the inference attack per span
                                       # on every run, over `docs` documents per corpus drawn with the
                                       # seed, the same for every run (workbench/benchmark/inference.py)

Every combination becomes one run in the store; rerunning resumes or reuses finished
runs (run ids come from signatures), so a benchmark is cheap to repeat.
"""

from __future__ import annotations

import itertools
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.generator_contract.base import BATCH_SIZE, GenerationOptions, Generator
from workbench.infra.errors import WorkbenchError
from workbench.upos.factory import DEFAULT_TAGGER

if TYPE_CHECKING:
    from workbench.benchmark.inference import InferencePlan
    from workbench.data_model import Corpus

SHIPPED_DIR = Path(__file__).resolve().parent / "suites"

# Keys a configuration may hold: anything else is a typo, reported with the file.
# mode, upos_filter and consistent take a list (one run per value); the others one value.
_LISTED_KEYS = ("mode", "upos_filter", "consistent")
_OPTION_KEYS = tuple(f.name for f in fields(GenerationOptions) if f.name not in _LISTED_KEYS)
_TOP_KEYS = {"name", "description", "corpora", "modes", "consistent", "generators", "references", "reid", "known_pair",
             "infer", "seeds", *_OPTION_KEYS}
_GENERATOR_KEYS = {"name", "run_name", "corpora", "modes", "upos_filter", "consistent", "options", "docs",
                   "skip_docs", "seeds", *_OPTION_KEYS}


@dataclass(frozen=True, slots=True)
class PlannedRun:
    corpus: str
    generator: str
    options: GenerationOptions  # checked when the configuration is loaded
    settings: tuple[tuple[str, str], ...]  # generator Config values, as CLI strings
    docs: str | None = None  # --docs: ids or @file, for a held-out split
    skip_docs: str | None = None  # --skip-docs
    run_name: str | None = None  # --name: the run's name in reports (workbench.store.run_name_rule)

    # The options' fields, as the planned run had them before it carried GenerationOptions.
    mode = property(lambda self: self.options.mode)
    upos_filter = property(lambda self: self.options.upos_filter)
    seed = property(lambda self: self.options.seed)
    window = property(lambda self: self.options.window)
    top_k = property(lambda self: self.options.top_k)
    leak_guard = property(lambda self: self.options.leak_guard)
    consistent = property(lambda self: self.options.consistent)


@dataclass(frozen=True, slots=True)
class BenchmarkConfig:
    name: str
    description: str
    runs: tuple[PlannedRun, ...]
    path: str = ""
    references: tuple[str, ...] = ()  # reference kinds stored for every corpus of the runs
    reid: tuple[str, ...] = ()  # attackers run on every run of a corpus with background knowledge
    known_pair: bool = False  # the known-pair attack on every complete run (issue 27)
    # What the configuration's seeds did not do: a deterministic generator run once
    # (workbench.generator_contract.seeds).
    notes: tuple[str, ...] = ()
    infer: InferencePlan | None = None  # the inference attack over a seeded sample (workbench.benchmark.inference)


def shipped_benchmarks() -> list[str]:
    return sorted(p.stem for p in SHIPPED_DIR.glob("*.toml"))


def load_benchmark(name_or_path: str) -> BenchmarkConfig:
    """The configuration, with every planned run's options checked (types, mode, ranges).

    A mistake anywhere in the file is a WorkbenchError naming the file and the generator
    entry, before any run starts; see `check_benchmark` for what needs the generators.
    """
    path = Path(name_or_path)
    if not path.exists():
        path = SHIPPED_DIR / f"{name_or_path}.toml"
    if not path.exists():
        raise WorkbenchError(f"no benchmark {name_or_path!r} (shipped: {', '.join(shipped_benchmarks())})")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise WorkbenchError(f"benchmark file {path}: {exc}") from None
    _no_unknown_keys(data, _TOP_KEYS, f"benchmark file {path}")
    generators = data.get("generators")
    if not isinstance(generators, list) or not generators or not all(isinstance(g, dict) for g in generators):
        raise WorkbenchError(f"benchmark file {path}: needs at least one [[generators]] table")
    runs, notes = [], []
    for n, g in enumerate(generators, 1):
        where = f"benchmark file {path}, generator {n} ({g.get('name', 'no name')})"
        try:
            planned, note = _seeded(_planned_runs(data, g, path), _seeds(data, g))
            runs += planned
            notes += [note] if note else []
        except WorkbenchError as exc:
            raise WorkbenchError(f"{where}: {exc}") from None
    name = _plain_name(data["name"], path) if "name" in data else path.stem  # a file name: one folder name
    from workbench.benchmark.inference import checked_inference
    from workbench.benchmark.privacy import checked_attackers, checked_known_pair, checked_references
    try:
        references, reid = checked_references(data.get("references")), checked_attackers(data.get("reid"))
        known_pair = checked_known_pair(data.get("known_pair"))
        infer = checked_inference(data.get("infer"), _sample_seed(data))
    except WorkbenchError as exc:
        raise WorkbenchError(f"benchmark file {path}: {exc}") from None
    return BenchmarkConfig(name, str(data.get("description", "")), tuple(runs), str(path), references, reid,
                           known_pair, tuple(notes), infer)


def _sample_seed(data: dict) -> int:
    """The seed of the inference attack's sample: the file's seed, else the first of its seeds."""
    seeds = data.get("seeds")
    if "seed" not in data and isinstance(seeds, list) and seeds and isinstance(seeds[0], int):
        return seeds[0]
    seed = data.get("seed", GenerationOptions().seed)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise WorkbenchError(f"seed must be a whole number, not {seed!r}")
    return seed


def _seeds(data: dict, g: dict) -> tuple[int, ...] | None:
    """The entry's `seeds` (its own, else the file's), None where neither has any; a table with
    both `seed` and `seeds` is refused, since one would be ignored."""
    from workbench.generator_contract.seeds import check_seeds
    for table, where in ((g, "the generator's table"), (data, "the top level")):
        if "seeds" in table and "seed" in table:
            raise WorkbenchError(f"{where} gives both seed and seeds: give one")
    if "seeds" in g:
        return check_seeds(g["seeds"])
    if "seed" in g or "seeds" not in data:  # the entry's own seed wins over the file's seeds
        return None
    return check_seeds(data["seeds"])


def _seeded(planned: list[PlannedRun], seeds: tuple[int, ...] | None) -> tuple[list[PlannedRun], str]:
    """Each planned run once per seed where the generator draws with its seed; a deterministic
    one once, with the first seed, and the note saying so. Without seeds: the runs as planned."""
    if seeds is None or not planned:
        return planned, ""
    from workbench.generator_contract.seeds import deterministic_note
    from workbench.pipeline import make_generator
    first = planned[0]
    if len(seeds) > 1 and not make_generator(first.generator, dict(first.settings),
                                             replace(first.options, seed=seeds[0])).draws_with_seed():
        return [replace(p, options=replace(p.options, seed=seeds[0])) for p in planned], \
            deterministic_note(first.generator, seeds)
    return [replace(p, options=replace(p.options, seed=seed)) for p in planned for seed in seeds], ""


# A benchmark's name is its report folder under out/ (`workbench benchmark` without --out):
# one plain folder name, so `name = "../../x"` or "/etc" cannot put the report elsewhere.
_PLAIN_NAME = re.compile(r"\w[\w .+-]{0,99}")


def _plain_name(name, path: Path) -> str:
    if not isinstance(name, str) or not _PLAIN_NAME.fullmatch(name):
        raise WorkbenchError(f"benchmark file {path}: name {name!r} is not a plain name: it names the report folder "
                             "out/NAME, so it takes letters, digits, spaces and . + - _ (starting with a letter or "
                             "digit, at most 100), no / or ..")
    return name


def with_settings(config: BenchmarkConfig, overrides: list[str]) -> BenchmarkConfig:
    """The configuration with generator settings replaced, each given as `GENERATOR.NAME=VALUE`
    (`intact.model=smollm2:135m-instruct`): every planned run of that generator gets the value,
    as if its `options` table said so. This runs a shipped configuration against one's own model
    or server without copying the file. A generator the configuration does not run, or a text
    not of that form, is a WorkbenchError; the value is checked with the run (check_benchmark)."""
    by_generator: dict[str, dict[str, str]] = {}
    for text in overrides:
        target, sep, value = text.partition("=")
        generator, dot, key = target.partition(".")
        if not (sep and dot and generator and key):
            raise WorkbenchError(f"--set {text!r}: expected GENERATOR.NAME=VALUE, e.g. intact.model=qwen2.5:7b")
        by_generator.setdefault(generator, {})[key] = value
    used = {planned.generator for planned in config.runs}
    for generator in by_generator:
        if generator not in used:
            raise WorkbenchError(f"--set {generator}.…: benchmark {config.name} runs no generator {generator!r} "
                                 f"(it runs: {', '.join(sorted(used))})")
    runs = tuple(replace(planned, settings=tuple(sorted({**dict(planned.settings),
                                                          **by_generator.get(planned.generator, {})}.items())))
                 for planned in config.runs)
    return replace(config, runs=runs)


def _planned_runs(data: dict, g: dict, path: Path) -> list[PlannedRun]:
    from workbench.pipeline import setting_text
    _no_unknown_keys(g, _GENERATOR_KEYS)  # the caller puts `where` before the message, once
    name = _text(g.get("name"), "name")
    corpora = _list(g["corpora"] if "corpora" in g else data.get("corpora"), "corpora", str)
    modes = _list(g.get("modes", data.get("modes", [GenerationOptions().mode])), "modes", str)
    upos_filters = _list(g.get("upos_filter", [GenerationOptions().upos_filter]), "upos_filter", bool)
    consistents = _list(g.get("consistent", data.get("consistent", [GenerationOptions().consistent])), "consistent",
                        str)
    settings = g.get("options", {})
    if not isinstance(settings, dict):
        raise WorkbenchError("options must be a table, e.g. options = { model = \"offline\" }")
    settings = tuple(sorted((k, setting_text(v)) for k, v in settings.items()))
    common = {k: g.get(k, data.get(k, getattr(GenerationOptions(), k))) for k in _OPTION_KEYS}
    docs, skip = (_expand(_optional_text(g.get(k), k), path) for k in ("docs", "skip_docs"))
    run_name = g.get("run_name")
    if run_name is not None:
        from workbench.store.run_name_rule import check_run_name
        run_name = check_run_name(_text(run_name, "run_name"))
    return [PlannedRun(corpus, name, GenerationOptions(mode=mode, upos_filter=upos, consistent=consistent, **common),
                       settings, docs, skip, run_name)
            for corpus, mode, upos, consistent in itertools.product(corpora, modes, upos_filters, consistents)]


def _no_unknown_keys(table: dict, known: set[str], where: str = "") -> None:
    unknown = sorted(set(table) - known)
    if unknown:
        raise WorkbenchError(f"{where + ': ' if where else ''}unknown key(s) {', '.join(unknown)} "
                             f"(known: {', '.join(sorted(known))})")


def _text(value, key: str) -> str:
    if not isinstance(value, str) or not value:
        raise WorkbenchError(f"{key} must be a non-empty string, not {value!r}")
    return value


def _optional_text(value, key: str) -> str | None:
    return None if value is None else _text(value, key)


def _list(value, key: str, kind: type) -> list:
    """A list of `kind`; a single value stands for a list of one."""
    items = value if isinstance(value, list) else [value]
    if value is None or not items or not all(isinstance(v, kind) for v in items):
        raise WorkbenchError(f"{key} must be a non-empty list of {kind.__name__}, not {value!r}")
    return items


def _expand(spec: str | None, config_path: Path) -> str | None:
    """A document selection with {cache} replaced by the cache folder (where checkpoints keep
    their split files) and {here} by the configuration's folder, so a configuration works
    wherever the cache and the checkout live."""
    if spec is None:
        return None
    from workbench.infra.paths import cache_dir
    return str(spec).replace("{cache}", str(cache_dir())).replace("{here}", str(config_path.resolve().parent))


@dataclass(slots=True)
class PreparedRun:
    planned: PlannedRun
    corpus: Corpus
    generator: Generator  # checked, not loaded


def check_benchmark(config: BenchmarkConfig) -> list[PreparedRun]:
    """Every planned run made ready without loading a model: its corpus loaded (with its
    document selection, and not empty) and its generator found with its settings converted.
    A mistake in any run is a WorkbenchError naming it, before the first run starts."""
    from workbench.generation.engine import check_corpus
    from workbench.loaders import load_corpus
    from workbench.loaders.subset import select_documents
    from workbench.pipeline import make_generator

    corpora, prepared = {}, []
    for n, planned in enumerate(config.runs, 1):
        try:
            key = (planned.corpus, planned.docs, planned.skip_docs)
            if key not in corpora:
                corpora[key] = select_documents(load_corpus(planned.corpus), keep=planned.docs,
                                                skip=planned.skip_docs)
                check_corpus(corpora[key])
            gen = make_generator(planned.generator, dict(planned.settings), planned.options)
        except WorkbenchError as exc:
            raise WorkbenchError(f"benchmark {config.name}, run {n} ({planned.generator} on {planned.corpus}, "
                                 f"{planned.mode}): {exc}") from None
        prepared.append(PreparedRun(planned, corpora[key], gen))
    return prepared


def run_benchmark(config: BenchmarkConfig, *, store, tagger: str = DEFAULT_TAGGER, batch_size: int = BATCH_SIZE,
                  progress: bool = True, on_run: Callable | None = None,
                  confirm: Callable | None = None, log: Callable[[str], None] | None = None,
                  cluster=None) -> list | None:
    """Generate every run of the configuration (resuming unfinished ones, reusing finished ones),
    then its privacy half: the reference runs of each corpus and the re-identification attacks
    (workbench.benchmark.privacy), both reused when already stored.

    Every run is checked first (check_benchmark), so a mistake in the tenth stops the
    benchmark before the first is stored. store: a RunStore or its path. on_run(PlannedRun | None,
    GenerationResult) is called after each run (None for a reference run). confirm(PlanSize) is asked
    once every run is checked (workbench.benchmark.plan): False starts nothing and returns None.
    log(message): what the privacy half says (which corpora have no background knowledge), and with
    a cluster the progress lines. cluster: a workbench.executors.options.ExecutorOptions naming the
    executor (None: local); with "ray" the shards of every run go to Ray at once, the same runs and output.
    Returns the GenerationResults in the configuration's order, the reference runs after them.
    """
    from workbench.benchmark.inference import check_inference
    from workbench.executors.contract import RunJob
    from workbench.executors.options import executor_for
    from workbench.pipeline import make_tagger, result_of
    from workbench.store import RunStore

    results = []
    checked = check_benchmark(config)
    check_inference(config.infer, checked, config.path)
    if log is not None:
        for note in config.notes:  # a deterministic generator under several seeds: run once
            log(note)
    if confirm is not None and not _confirmed(confirm, checked, store, config):
        return None
    for prepared in checked:  # the models made on this machine that a run names, built once (minutes)
        prepared.generator.build_missing(sorted({d.lang for d in prepared.corpus.documents}))
    executor = executor_for(cluster)
    with executor.held(log if progress else None):  # one cluster (if any) for the runs and the attacks
        if not isinstance(store, RunStore):  # a path: opened once every run is checked and the cluster joined
            store = RunStore(store)
        # A lazy iterable: the local executor tags and generates one run after the other, so on_run
        # reports each as it finishes; Ray sends the shards of every run at once.
        jobs = (RunJob(p.corpus, p.generator, make_tagger(tagger, p.corpus, quiet=n > 0), p.planned.run_name)
                for n, p in enumerate(checked))
        records = executor.generate(store, jobs, batch_size=batch_size, progress=progress, log=log)
        for prepared, record in zip(checked, records):
            result = result_of(store, record)
            results.append(result)
            if on_run is not None:
                on_run(prepared.planned, result)
        from workbench.benchmark.privacy import attack_known_pairs, attack_runs, store_references
        for result in store_references(config.references, checked, store, tagger=tagger):
            results.append(result)
            if on_run is not None:
                on_run(None, result)
        attack_runs(config.reid, results, store, progress=progress, log=log, cluster=cluster)
        attack_known_pairs(config.known_pair, results, store)
    return results


def _confirmed(confirm: Callable, checked: list[PreparedRun], store, config: BenchmarkConfig) -> bool:
    """confirm(PlanSize), the rates taken from the store's runs; a store not there yet is not created."""
    from functools import partial

    from workbench.benchmark.plan import plan_size
    from workbench.store import RunStore
    size = partial(plan_size, checked, inference=config.infer, references=len(config.references))
    if isinstance(store, RunStore):
        return confirm(size(store))
    if not Path(store).exists():
        return confirm(size())
    with RunStore(store, create=False) as existing:
        return confirm(size(existing))
