"""`workbench generate`: one generator over one corpus, stored as a (resumable) run."""

from __future__ import annotations

import click
from click.core import ParameterSource

from workbench.cli._options import (
    cluster_from_options,
    cluster_options,
    corpus_options,
    load_corpus_from_options,
    name_value_pairs,
    stdout_to_stderr,
    store_option,
)
from workbench.infra.paths import default_store


def _default(name: str):
    """A GenerationOptions default: the dataclass is the one place it is written."""
    from workbench.generator_contract.base import GenerationOptions
    return GenerationOptions.__dataclass_fields__[name].default


def generation_options(func):
    """The options every generator honours (GenerationOptions)."""
    from workbench.generator_contract.base import BATCH_SIZE, LEAK_SCOPES
    from workbench.text.slots import CONSISTENT_SCOPES, MODES
    from workbench.upos.factory import DEFAULT_TAGGER, TAGGERS
    for decorator in reversed([
        click.option("-g", "--generator", required=True, help="Generator name (see `workbench generators`)."),
        click.option("--mode", type=click.Choice(MODES), default=_default("mode"), show_default=True,
                     help="maskL: every span in the window masked; "
                          "repL: spans left of the target carry earlier picks."),
        click.option("--upos-filter/--no-upos-filter", default=_default("upos_filter"), show_default=True,
                     help="Pick the first top-k candidate with the original's UPOS (003 §4)."),
        click.option("--morph-filter/--no-morph-filter", default=_default("morph_filter"), show_default=True,
                     help="A stricter UPOS filter (turns it on): the first candidate whose UPOS and UD "
                          "Case/Number/Definite in context match the original's; else as the UPOS filter."),
        click.option("--window", type=click.IntRange(0), default=_default("window"), show_default=True,
                     help="Sentences of context either side of the target sentence."),
        click.option("--seed", type=int, default=_default("seed"), show_default=True,
                     help="Seed of the generator's random choices; part of the run id (another seed, another run)."),
        click.option("--top-k", type=click.IntRange(1), default=_default("top_k"), show_default=True,
                     help="Candidates a generator ranks per span (003 §4: 10), among which the UPOS and "
                          "morphology filters and the leak guard choose."),
        # `--leak-guard` alone is 003's guard (scope "span"); `--leak-guard corpus` widens it.
        click.option("--leak-guard", "leak_scope", is_flag=False, flag_value=LEAK_SCOPES[0], default=None,
                     type=click.Choice(LEAK_SCOPES), metavar="[corpus]",
                     help="Refuse candidates overlapping the original span (003 §5.2); with `corpus`, also "
                          "any candidate equal to an original value anywhere in the corpus."),
        click.option("--no-leak-guard", is_flag=True, help="No leak guard (the default)."),
        click.option("--consistent", type=click.Choice(CONSISTENT_SCOPES), default=_default("consistent"),
                     show_default=True,
                     help="One pseudonym per entity: the first mention is generated, later ones reuse it, "
                          "per document or across the corpus."),
        click.option("--model", default=None, help="Model id or local path (generators with a model)."),
        click.option("--option", "-o", "extra", multiple=True, metavar="NAME=VALUE",
                     help="A generator-specific setting, checked against its config (repeatable)."),
        click.option("--batch-size", type=click.IntRange(1), default=BATCH_SIZE, show_default=True,
                     help="Spans per generator call and per store transaction (memory, and what an interruption "
                          "loses); not part of the run id: the output is the same."),
        click.option("--tagger", type=click.Choice(TAGGERS), default=DEFAULT_TAGGER, show_default=True,
                     help="UPOS tagger; auto = stanza if its models are installed, else the offline spaCy UD taggers."),
    ]):
        func = decorator(func)
    return func


def leak_options(scope: str | None, off: bool) -> dict:
    """GenerationOptions' leak_guard and leak_scope from `--leak-guard [corpus]` / `--no-leak-guard`."""
    if scope is not None and off:
        raise click.UsageError("--leak-guard and --no-leak-guard contradict each other: give one")
    if scope is None:
        return {"leak_guard": False}
    return {"leak_guard": True, "leak_scope": scope}


def parse_generator_settings(model: str | None, extra: tuple[str, ...]) -> dict[str, str]:
    """The generator's settings from `--model` and the `-o NAME=VALUE` items."""
    settings = name_value_pairs(extra, "--option")
    if model is not None:
        settings["model"] = model
    return settings


def equal_to_original_text(count: int, leak_guard: bool) -> str:
    """The summary's count of pseudonyms equal to their original (case and white space ignored)."""
    if count == 0:
        return "0 equal to their original"
    why = "" if leak_guard else " (without --leak-guard nothing prevents it)"
    return f"{count} equal to their original{why}"


def register(main: click.Group) -> None:
    @main.command("generate")
    @corpus_options
    @generation_options
    @store_option
    @click.option("--progress/--no-progress", default=True, show_default=True,
                  help="A progress bar over the spans on stderr (drawn only on a terminal).")
    @click.option("--print-id", is_flag=True,
                  help="Print only the run id on stdout, so `RUN=$(workbench generate ... --print-id)` holds it; "
                       "the summary goes to stderr.")
    @click.option("--name", "run_name", default=None, metavar="TEXT",
                  help="A short name for the run in report tables and figures (default: built from generator, "
                       "mode, filter, guard). Not part of the run id: giving another name renames the run.")
    @click.option("--retry-failed", is_flag=True,
                  help="Generate the run's FAILED spans again (after an outage); resumable like a run.")
    @click.option("--seeds", default=None, metavar="13,14,15",
                  help="One run per seed (each its own run id), for the report's mean ± sd across seeds; a "
                       "deterministic generator (fill-mask …) runs once, with the first, and says so. "
                       "Instead of --seed.")
    @cluster_options
    def generate(corpus, corpus_format, lang, spans, quality_checked, annotator, docs, skip_docs, generator, mode,
                 upos_filter, morph_filter, window, seed, top_k, leak_scope, no_leak_guard, consistent, model, extra,
                 batch_size, tagger, store_path, progress, print_id, run_name, retry_failed, seeds, executor,
                 address, shards, allow_remote) -> None:
        """Generate pseudonyms for every span of a corpus and store them as a run.

        Running the same command again resumes an interrupted run (or reports the
        finished one); nothing is generated twice. Exits 3 when spans FAILED because
        the server could not be reached, 4 when the server answered errors for more
        than half of the spans or every span FAILED (the causes are named): rerun with
        --retry-failed once the server is mended. The server's address (-o host=…) is
        not part of the run id: the retry may use another.

        \b
        Example:
          workbench generate -c pgv-pii-sv -g upos --mode repL
          workbench generate -c tab-test -g random --leak-guard
          workbench generate -c pgv-pii-sv -g random --leak-guard corpus
          workbench generate -c pgv-pii-sv -g fill-mask --model offline --morph-filter
          workbench generate -c pgv-pii-en -g upos --consistent document
          workbench generate -c pgv-pii-en -g random --seed 14 --name "random seed 14"
          workbench generate -c tab-test -g fill-mask --executor ray --shards 8
          RUN=$(workbench generate -c pgv-pii-en -g upos --upos-filter --print-id)
          workbench generate -c pgv-pii-sv -g random --seeds 13,14,15
        """
        from workbench.generator_contract.seeds import parse_seeds
        from workbench.loaders.entity_grouping import entity_counts
        from workbench.pipeline import generate_seed_runs

        seed_given = click.get_current_context().get_parameter_source("seed") is not ParameterSource.DEFAULT
        if seeds is not None and seed_given:
            raise click.UsageError("--seed and --seeds contradict each other: give one")
        seed_list = parse_seeds(seeds) if seeds is not None else (seed,)

        cluster = cluster_from_options(executor, address, shards, allow_remote)
        loaded = load_corpus_from_options(corpus, corpus_format, lang, spans, quality_checked, annotator,
                                          docs, skip_docs)
        leak_guard = leak_options(leak_scope, no_leak_guard)
        options = dict(mode=mode, upos_filter=upos_filter, morph_filter=morph_filter, window=window, seed=seed,
                       top_k=top_k, consistent=consistent, **leak_guard)
        # The store is given by path: generate_run opens it once the input is checked. With --print-id,
        # anything written to stdout meanwhile (a library's print, a worker's log) goes to stderr instead.
        with stdout_to_stderr(print_id):
            runs = generate_seed_runs(loaded, generator, parse_generator_settings(model, extra), options,
                                      seeds=seed_list, store=store_path or default_store(), tagger=tagger,
                                      batch_size=batch_size, progress=progress, retry_failed=retry_failed,
                                      name=run_name, cluster=cluster, log=lambda line: click.echo(line, err=True))
        if runs.note:
            click.echo(runs.note, err=True)
        for result in runs.results:
            for line in summary_lines(result, entity_counts(loaded), leak_guard["leak_guard"]):
                click.echo(line, err=print_id)
        if print_id:  # one id per line, in the seeds' order
            click.echo("\n".join(result.run_id for result in runs.results))
        for result in runs.results:  # exit 3 (unreachable) or 4 (server errors, all FAILED): workbench.llm.verdict
            verdict = result.verdict
            if verdict is not None and verdict.exit_code:
                click.echo(verdict.error(), err=True)
                raise SystemExit(verdict.exit_code)


def summary_lines(result, entities: object, leak_guard: bool) -> list[str]:
    """What `generate` says of the run it stored: id, counts, signature, filters' fallbacks."""
    named = f" ({result.run.name})" if result.run.name else ""
    equal = equal_to_original_text(result.equal_to_original, leak_guard)
    causes = f" ({result.verdict.causes_text()})" if result.verdict and result.failed else ""
    lines = [f"run {result.run_id}{named} {result.run.status}: {result.run.n_slots} spans, "
             f"{result.failed} FAILED{causes}, {equal}", f"  {result.run.signature}"]
    if result.run.servers:  # recorded, not part of the signature: the run resumes at another address
        lines.append(f"  server: {' then '.join(result.run.servers)}")
    if result.run.options.get("morph_filter"):  # never silent: how often the filter could not choose
        lines.append(f"  morph filter: {result.morph_fallback} of {result.stored} spans fell back to the UPOS "
                     f"filter's pick, {result.morph_reinflected} Swedish genitives reinflected")
    if result.origin_filter:  # likewise for keep_origin's candidate filter (issue 41)
        lines.append(f"  keep origin: {result.origin_fallback} person/place spans had no candidate of the "
                     f"original's origin and {result.origin_unknown} an original of unknown origin: the "
                     "generator's normal choice taken")
    lines.append(f"  {entities}")  # which mentions --consistent and the metrics read as one entity
    return lines
