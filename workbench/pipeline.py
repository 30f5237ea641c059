"""One call per job: what `workbench generate` and `workbench report` do, as library functions.

    from workbench.pipeline import generate_run
    from workbench.store import RunStore

    result = generate_run("pgv-pii-en", "upos", options={"mode": "repL", "upos_filter": True},
                          store=RunStore("runs.sqlite"))
    print(result.run.run_id, result.failed)

The steps, in the order they run (as lm-evaluation-harness's simple_evaluate does for
its models and tasks):

    corpus (a Corpus, or a shipped name / file)     refused when it has no span to fill
      ─▶ options (GenerationOptions, or a mapping)  checked: mode, window, seed, top-k …
      ─▶ generator (by name, settings as for -o)    checked against its Config
      ─▶ tagger (by name, or a Tagger)
      ─▶ generation.engine.run_generation            claims the run, loads the generator,
                                                     then writes the corpus, run and spans

Everything a user can get wrong raises a WorkbenchError before the store is written.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from workbench.data_model import Corpus
from workbench.generator_contract.base import BATCH_SIZE, GenerationOptions, Generator
from workbench.infra.errors import WorkbenchError
from workbench.llm.verdict import Verdict, run_verdict
from workbench.prediction_notes import is_unreachable
from workbench.privacy.reid_attacks.reid_contract import DEFAULT_K
from workbench.store import COMPLETE, RunRecord, RunStore
from workbench.store.run_name_rule import check_run_name
from workbench.upos.base import Tagger
from workbench.upos.factory import DEFAULT_TAGGER


@dataclass(frozen=True, slots=True)
class GenerationResult:
    run: RunRecord
    stored: int  # predictions stored for the run
    failed: int  # of them [FAILED]
    unreachable: int  # of the failed, those whose server could not be reached (retry them)
    # Pseudonyms that are their original (workbench.text.overlap_rules.equals_original: case and
    # white space ignored, numerals included). Without --leak-guard nothing prevents them.
    equal_to_original: int = 0
    # The causes of the FAILED spans and whether the run failed (workbench.llm.verdict): the
    # exit code and the error line of `generate` and `benchmark`. None only when built by hand.
    verdict: Verdict | None = None
    # The morphology filter's picks (issue 37), from the stored notes: spans where it found no
    # candidate with the original's features and took the UPOS filter's pick, and Swedish
    # genitives it reinflected instead (workbench.generation.pseudonym_choice).
    morph_fallback: int = 0
    morph_reinflected: int = 0
    # keep_origin's candidate filter (issue 41), where the generator asked for it: person and place
    # spans where no candidate kept the original's origin, or its origin was unknown, and the
    # generator's normal choice was taken (pseudonym_choice.ORIGIN_FALLBACK, ORIGIN_UNKNOWN).
    origin_filter: bool = False
    origin_fallback: int = 0
    origin_unknown: int = 0

    @property
    def run_id(self) -> str:
        return self.run.run_id


def make_options(options: GenerationOptions | Mapping | None) -> GenerationOptions:
    """GenerationOptions from a mapping of its field names (a TOML table, keyword values)."""
    if options is None:
        return GenerationOptions()
    if isinstance(options, GenerationOptions):
        return options
    try:
        return GenerationOptions(**dict(options))
    except TypeError:
        known = GenerationOptions.__dataclass_fields__
        unknown = sorted(set(options) - set(known))
        raise WorkbenchError(f"unknown generation option(s) {', '.join(map(str, unknown))} "
                             f"(known: {', '.join(known)})") from None


def make_generator(name: str, settings: Mapping[str, object] | None = None,
                   options: GenerationOptions | Mapping | None = None) -> Generator:
    """The generator `name` with its Config from `settings` (values as the CLI's `-o` strings,
    or TOML values) and the common options; checked, not yet loaded."""
    from workbench.generator_contract.registry import create_generator
    values = {str(k): setting_text(v) for k, v in (settings or {}).items()}
    return create_generator(name, values, make_options(options))


def setting_text(value: object) -> str:
    # build_config converts strings by the field's type; a TOML `true` arrives as a bool.
    return str(value).lower() if isinstance(value, bool) else str(value)


def make_tagger(tagger: str | Tagger, corpus: Corpus, *, quiet: bool = False) -> Tagger:
    if isinstance(tagger, Tagger):
        return tagger
    from workbench.upos import get_tagger
    return get_tagger(tagger, langs=tuple(sorted({d.lang for d in corpus.documents})), quiet=quiet)


def load_named_corpus(corpus: Corpus | str) -> Corpus:
    if isinstance(corpus, Corpus):
        return corpus
    from workbench.loaders import load_corpus
    return load_corpus(corpus)


def generate_run(corpus: Corpus | str, generator: str | Generator, settings: Mapping[str, object] | None = None,
                 options: GenerationOptions | Mapping | None = None, *, store: RunStore | str | Path,
                 tagger: str | Tagger = DEFAULT_TAGGER, batch_size: int = BATCH_SIZE, progress: bool = True,
                 retry_failed: bool = False, quiet_tagger: bool = False,
                 after_batch: Callable[[int], None] | None = None, name: str | None = None,
                 cluster=None, log: Callable[[str], None] | None = None) -> GenerationResult:
    """Generate (or resume, or reuse) the run of `generator` over `corpus` and return it with its counts.

    corpus: a Corpus, or a shipped corpus name or corpus file (format from the extension).
    generator: a registered name (`workbench generators`), or a ready Generator (settings
    and options must then be left out: it has its own).
    settings: the generator's own Config values, as for `--model` / `-o name=value`.
    options: GenerationOptions or a mapping of its fields (mode, upos_filter, window, seed,
    top_k, leak_guard, consistent); missing fields take the dataclass defaults.
    store: a RunStore, or the path of one (opened only once the input is checked, so a
    mistake does not even create the file).
    tagger: auto | stanza | spacy, or a Tagger. retry_failed: generate FAILED spans again.
    name: the run's short name for tables and figures (workbench.store.run_name_rule.check_run_name); not
    in the signature: the same run with another name is renamed, never generated again.
    cluster: a workbench.executors.options.ExecutorOptions naming the executor (None: local); with
    "ray" the run's documents are generated in shards by Ray workers (workbench.cluster), the same
    run id and output; log(line) then gets its progress lines.
    Raises WorkbenchError for every mistake of input, before anything is written.
    """
    from workbench.generation.engine import check_corpus

    loaded = load_named_corpus(corpus)
    check_corpus(loaded)
    if name is not None:
        name = check_run_name(name)
    if isinstance(generator, Generator):
        if settings or options is not None:
            raise ValueError("a ready Generator carries its own settings and options")
        gen = generator
    else:
        gen = make_generator(generator, settings, options)
    # The models made on this machine that the run names (the offline MLMs, MTC's default
    # checkpoint), built once where missing, their build line saying what it costs (issue 36).
    gen.build_missing(sorted({d.lang for d in loaded.documents}))
    tagging = make_tagger(tagger, loaded, quiet=quiet_tagger)
    from workbench.executors.contract import RunJob
    from workbench.executors.options import executor_for
    executor = executor_for(cluster)
    with executor.session(store, log if progress else None):
        if not isinstance(store, RunStore):
            store = RunStore(store)
        [record] = executor.generate(store, [RunJob(loaded, gen, tagging, name, retry_failed)], batch_size=batch_size,
                                     progress=progress, log=log, after_batch=after_batch)
        return result_of(store, record, origin_filter=gen.keeps_origin())


@dataclass(frozen=True, slots=True)
class SeedRuns:
    """The runs of one configuration over several seeds (generate_seed_runs)."""
    results: tuple[GenerationResult, ...]  # one per seed run, in the seeds' order
    seeds: tuple[int, ...]  # the seeds run: all of those asked, or the first for a deterministic generator
    note: str = ""  # why fewer runs than seeds (workbench.generator_contract.seeds.deterministic_note); "" otherwise


def generate_seed_runs(corpus: Corpus | str, generator: str, settings: Mapping[str, object] | None = None,
                       options: GenerationOptions | Mapping | None = None, *, seeds: Sequence[int],
                       store: RunStore | str | Path, **run_args) -> SeedRuns:
    """generate_run once per seed (`options`' own seed replaced), each its own run with its own
    id, for the report's mean ± sd across seeds; a generator whose seed changes nothing
    (Generator.draws_with_seed) runs once, with the first seed, and the result's note says so.
    Every seed and the generator are checked before the first run starts. run_args: as
    generate_run's (tagger, batch_size, progress, name, cluster, log …)."""
    from dataclasses import replace

    from workbench.generator_contract.seeds import check_seeds, deterministic_note
    base = make_options(options)  # a bad option reads as generate_run says it
    seeds = check_seeds(list(seeds))
    if len(seeds) == 1:  # one run: exactly generate_run
        return SeedRuns((generate_run(corpus, generator, settings, replace(base, seed=seeds[0]), store=store,
                                      **run_args),), seeds)
    loaded = load_named_corpus(corpus)
    first = make_generator(generator, settings, replace(base, seed=seeds[0]))  # checked before anything runs
    note = ""
    if len(seeds) > 1 and not first.draws_with_seed():
        seeds, note = seeds[:1], deterministic_note(generator, seeds)
    results = tuple(generate_run(loaded, generator, settings, replace(base, seed=seed), store=store, **run_args)
                    for seed in seeds)
    return SeedRuns(results, seeds, note)


def result_of(store: RunStore, record: RunRecord, *, origin_filter: bool = False) -> GenerationResult:
    """origin_filter: the generator kept candidates of the original's origin (Generator.keeps_origin)."""
    predictions = list(store.predictions(record.run_id))
    failed = sum(p.failed for p in predictions)
    unreachable = sum(1 for p in predictions if p.failed and is_unreachable(p.note))
    from workbench.generation.pseudonym_choice import MORPH_FALLBACK, MORPH_REINFLECTED, ORIGIN_FALLBACK, ORIGIN_UNKNOWN
    return GenerationResult(record, len(predictions), failed, unreachable,
                            count_equal_to_original(store, record, predictions), run_verdict(record, predictions),
                            morph_fallback=sum(MORPH_FALLBACK in p.note for p in predictions),
                            morph_reinflected=sum(MORPH_REINFLECTED in p.note for p in predictions),
                            origin_filter=origin_filter,
                            origin_fallback=sum(ORIGIN_FALLBACK in p.note for p in predictions),
                            origin_unknown=sum(ORIGIN_UNKNOWN in p.note for p in predictions))


def count_equal_to_original(store: RunStore, record: RunRecord, predictions=None) -> int:
    """How many of the run's stored pseudonyms equal their original span's text
    (workbench.text.overlap_rules.equals_original); FAILED spans never count."""
    from workbench.text.overlap_rules import equals_original
    corpus = store.load_corpus(record.corpus_hash)
    spans = {(d.doc_id, i): s.text for d in corpus.documents for i, s in enumerate(d.spans)}
    predictions = store.predictions(record.run_id) if predictions is None else predictions
    return sum(1 for p in predictions if not p.failed and equals_original(p.pseudonym, spans[p.doc_id, p.span_index]))


def report_runs(store: RunStore, run_ids: Sequence[str], out_dir, *, all_complete: bool = False,
                formats: Sequence[str] | None = None, config=None, allow_incomplete: bool = False,
                k: int = DEFAULT_K, progress: bool = False, utility: Sequence[str] | None = None,
                families: Sequence[str] | None = None) -> list:
    """What `workbench report` does: the named runs (ids or unique prefixes), plus every
    complete run of the store with all_complete, reported by reports.write_report into
    out_dir. config: a metrics.MetricConfig (default: the offline defaults); k: the privacy
    table's rank <= k; progress: a bar over the metric families on stderr (on a terminal);
    utility: the privacy–utility figure's utility measures (default TPS and word similarity);
    families: the metric families (default every one; the others' columns read –).
    Returns the paths written."""
    from workbench.reports import FORMATS, write_report
    ids = list(run_ids)
    if all_complete:
        ids += [r.run_id for r in store.runs() if r.status == COMPLETE and r.run_id not in ids]
    if not ids and all_complete:  # "use --all" would send the user round in a circle
        stored = len(store.runs())
        raise WorkbenchError(f"--all: the store {store.path} holds no runs yet; make one with `workbench generate`"
                             if not stored else
                             f"--all: none of the {stored} run(s) in the store {store.path} is complete; finish them "
                             "(their generate command resumes them), or name them with --allow-incomplete")
    if not ids:
        raise WorkbenchError("name at least one run (see `workbench runs`), or use --all")
    from workbench.metrics import MetricConfig, MetricContext
    context = MetricContext(config or MetricConfig(), progress=progress)
    return write_report(store, ids, out_dir, formats or FORMATS, context=context, allow_incomplete=allow_incomplete,
                        k=k, utility=utility, families=families)


FIRST_REPORT = "first"  # the benchmark's first report, in this folder under its report's


def report_benchmark(store: RunStore, run_ids: Sequence[str], out_dir, *, progress: bool = False,
                     log=lambda message: None, before_full=None) -> list:
    """What `workbench benchmark` reports: first the families that load no model
    (metrics.QUICK) and the stored privacy results into out_dir/first, in seconds, so that a long
    job shows its runs before the minutes that the metric models take the first time; then every
    family into out_dir. log(message) tells which is written and how long it took. before_full():
    what runs between the two (the benchmark's inference attack, workbench.benchmark.inference),
    so the full report holds its results. Returns the full report's paths."""
    import time

    from workbench.metrics import QUICK
    first = Path(out_dir) / FIRST_REPORT
    started = time.monotonic()
    report_runs(store, run_ids, first, progress=progress, families=QUICK)
    log(f"first report written to {first} in {time.monotonic() - started:.0f} s: the measures that load no "
        f"model ({', '.join(QUICK)}) and the stored privacy results; now every metric family (their models "
        "load, and train the first time: minutes)")
    if before_full is not None:
        before_full()
    started = time.monotonic()
    written = report_runs(store, run_ids, out_dir, progress=progress)
    log(f"full report computed in {time.monotonic() - started:.0f} s")
    return written
