"""`workbench benchmark NAME`: rerun a named configuration and write its report."""

from __future__ import annotations

import click

from workbench.cli._options import cluster_from_options, cluster_options, open_store, store_option
from workbench.generator_contract.base import BATCH_SIZE
from workbench.infra.paths import default_store
from workbench.upos.factory import DEFAULT_TAGGER, TAGGERS


def register(main: click.Group) -> None:
    @main.command("benchmark")
    @click.argument("name", required=False)
    @store_option
    @click.option("--out", type=click.Path(file_okay=False), default=None,
                  help="Folder for the report (default: out/NAME); a first report of the measures that load no "
                       "model is written before it, in its first/ folder.")
    @click.option("--batch-size", type=click.IntRange(1), default=BATCH_SIZE, show_default=True,
                  help="Spans per generator call and per store transaction, in every run (as `generate`'s).")
    @click.option("--tagger", type=click.Choice(TAGGERS), default=DEFAULT_TAGGER, show_default=True,
                  help="UPOS tagger of every run (as `generate`'s --tagger).")
    @click.option("--set", "overrides", multiple=True, metavar="GENERATOR.NAME=VALUE",
                  help="Replace a generator setting in every run of that generator, e.g. "
                       "--set intact.model=smollm2:135m-instruct --set intact.host=http://127.0.0.1:11500.")
    @click.option("--no-report", is_flag=True,
                  help="Only generate the runs (and the attacks the file asks for, the inference attack included).")
    @click.option("--progress/--no-progress", default=True, show_default=True,
                  help="Progress bars on stderr (drawn only on a terminal).")
    @click.option("--yes", is_flag=True,
                  help="Start a large plan without asking (needed when stdin is not a terminal).")
    @cluster_options
    def benchmark(name, store_path, out, batch_size, tagger, overrides, no_report, progress, yes, executor, address,
                  shards, allow_remote) -> None:
        """Generate every run of a named benchmark (resuming any unfinished one) and report them:
        first the measures that load no model (in seconds, in OUT/first), then every metric family.

        NAME is a shipped configuration (listed when NAME is left out) or a TOML file.
        Every run is checked before the first one starts; the plan's size and estimated time
        are printed, and a plan of more than 100 runs or 12 hours asks first (without a
        terminal, it needs --yes).

        \b
        Example:
          workbench benchmark baselines --out out/baselines
          workbench benchmark families --set intact.host=http://127.0.0.1:11500
          workbench benchmark families --executor ray --address auto
        """
        from workbench.benchmark.configs import load_benchmark, run_benchmark, shipped_benchmarks, with_settings

        if name is None:
            for shipped in shipped_benchmarks():
                click.echo(f"{shipped:<16} {load_benchmark(shipped).description}")
            return
        cluster = cluster_from_options(executor, address, shards, allow_remote)
        config = with_settings(load_benchmark(name), list(overrides))

        def echo(planned, result) -> None:
            # The stored run's, not the plan's: a generator may change it (INTACT runs as document),
            # and a reference run (planned None) has no plan.
            run = result.run
            consistent = f" consistent={run.consistency}" if run.consistency != "off" else ""
            click.echo(f"{run.run_id}  {run.corpus_name:<11} {run.generator:<9} {run.mode:<5} "
                       f"upos={'on ' if run.upos_filter else 'off'} {run.status}{consistent}, "
                       f"{result.equal_to_original} equal to their original")  # workbench.pipeline.equals_original

        results = run_benchmark(config, store=store_path or default_store(), tagger=tagger, batch_size=batch_size,
                                progress=progress, on_run=echo, confirm=lambda plan: _go_ahead(plan, yes),
                                log=lambda message: click.echo(message, err=True), cluster=cluster)
        if results is None:
            click.echo("nothing started")
            return
        code = _failed_runs(results)  # named on stderr; 3 before 4, as for `generate` (workbench.llm.verdict)
        from workbench.benchmark.inference import infer_runs
        store = open_store(store_path)

        def attack() -> None:  # the inference attack over its samples: after the first report, before the full
            infer_runs(config.infer, results, store, log=lambda message: click.echo(message, err=True),
                       benchmark=config.name)

        if no_report:
            attack()
            if code:
                raise SystemExit(code)
            return
        from workbench.pipeline import report_benchmark
        out = out or f"out/{config.name}"
        written = report_benchmark(store, [r.run_id for r in results], out, progress=progress,
                                   log=lambda message: click.echo(message, err=True), before_full=attack)
        click.echo(f"report written to {out} ({len(written)} files)")
        if code:
            raise SystemExit(code)


def _failed_runs(results) -> int:
    """Name each run that failed (unreachable server, server errors, every span FAILED) with its
    causes on stderr; the exit code: 3 when any run lost spans to an unreachable server, else 4
    when any run failed, else 0."""
    codes = []
    for r in results:
        verdict = r.verdict
        if verdict is not None and verdict.exit_code:
            codes.append(verdict.exit_code)
            error = str(verdict.error(remedy="rerun this run with `workbench generate … --retry-failed`"))
            click.echo(f"error: run {r.run_id} ({r.run.generator}, {r.run.corpus_name}): "
                       + error.removeprefix("error: "), err=True)
    return min(codes, default=0)


def _go_ahead(plan, yes: bool) -> bool:
    """Print the plan; a large one starts only when confirmed (workbench.benchmark.plan)."""
    import sys

    from workbench.benchmark.plan import ASK_ABOVE_RUNS, ASK_ABOVE_SECONDS, duration
    from workbench.infra.errors import WorkbenchError
    click.echo(plan.line(), err=True)
    if yes or not plan.needs_confirmation:
        return True
    if not sys.stdin.isatty():
        raise WorkbenchError(f"nothing started: the plan ({plan.runs} runs, about {duration(plan.seconds)}) is above "
                             f"what starts without asking ({ASK_ABOVE_RUNS} runs or {duration(ASK_ABOVE_SECONDS)}), "
                             "and stdin is not a terminal, so nobody can confirm; pass --yes to start it")
    return click.confirm("start it?", default=False)
