"""`workbench annotations …`: error annotation of pseudonyms outside the dashboard.

Each command is a few lines over one library function (workbench.annotation); the
doccano commands are in cli/doccano.py.
"""

from __future__ import annotations

import click

from workbench.cli._options import open_existing_store, store_option


def annotation_store(store_path):
    # Every annotations command needs stored runs: a mistyped --store is an error, never a new
    # empty store (even sample and import, which write, have nothing to work on in one).
    from workbench.annotation.storage import AnnotationStore
    return AnnotationStore(open_existing_store(store_path))


def register(main: click.Group) -> None:
    @main.group("annotations")
    def annotations() -> None:
        """Error annotation of pseudonyms (paper 003 tagset): samples, export, import, agreement.

        \b
        Example:
          workbench annotations sample session-1 -r 832a7ed4 -r 2d97c2f2 --per-run 60
          workbench annotations agreement
          workbench annotations table6 -o out/annotation
        """

    @annotations.command("sample")
    @click.argument("name")
    @click.option("-r", "--run", "runs", multiple=True, required=True, help="Run id (or prefix); repeat.")
    @click.option("--per-run", type=click.IntRange(1), default=60, show_default=True,
                  help="Pseudonyms per run (all a run has, when it has fewer: a warning names it).")
    @click.option("--unit", type=click.Choice(["document", "span"]), default="document", show_default=True,
                  help="document: documents in a seeded order, read from their start (the last one cut), "
                       "as entity-level tags need earlier mentions; span: single spans at random.")
    @click.option("--seed", type=int, default=0, show_default=True, help="The seed of the draw.")
    @store_option
    def sample(name, runs, per_run, unit, seed, store_path) -> None:
        """Draw the named sample of pseudonyms an annotation session covers.

        \b
        Example:
          workbench annotations sample session-1 -r 832a7ed4 -r 2d97c2f2 --per-run 60
        """
        from workbench.annotation.sampling import draw_named_sample, resolve_run_ids, shortfalls
        store = annotation_store(store_path)
        items = draw_named_sample(store, name, runs, per_run, unit, seed)
        click.echo(f"sample {name}: {len(items)} pseudonyms from {len(runs)} run(s)")
        for line in shortfalls(per_run, resolve_run_ids(store.run_store, runs) or [], items):
            click.echo(f"warning: {line}", err=True)

    @annotations.command("status")
    @store_option
    def status(store_path) -> None:
        """Samples and each annotator's progress.

        \b
        Example:
          workbench annotations status
        """
        from workbench.annotation.sampling import sample_progress
        store = annotation_store(store_path)
        for s in sample_progress(store):
            click.echo(f"{s.name}: {s.size} pseudonyms, {s.recipe['unit']} sampling, "
                       f"runs {', '.join(s.recipe['runs'])}")
            for annotator, done in s.done.items():
                click.echo(f"    {annotator:<20} {done:>5}/{s.size}")
        click.echo(f"{len(store.annotations())} annotations by {len(store.annotators())} annotator(s)")

    @annotations.command("export")
    @click.option("-o", "--output", type=click.Path(dir_okay=False), required=True, help="The JSONL file to write.")
    @click.option("-r", "--run", "runs", multiple=True, help="Only these runs (id or prefix); repeat.")
    @click.option("-a", "--annotator", "annotators", multiple=True, help="Only these annotators; repeat.")
    @store_option
    def export(output, runs, annotators, store_path) -> None:
        """Write annotations as JSONL (one tag per line).

        \b
        Example:
          workbench annotations export -o out/annotations.jsonl
        """
        from workbench.annotation.jsonl import export_annotations
        from workbench.annotation.sampling import resolve_run_ids
        store = annotation_store(store_path)
        n = export_annotations(store, output, resolve_run_ids(store.run_store, runs), list(annotators) or None)
        click.echo(f"wrote {n} annotations to {output}")

    @annotations.command("import")
    @click.argument("path", type=click.Path(exists=True, dir_okay=False))
    @click.option("-a", "--annotator", default=None, help="Store every tag under this name instead of the file's.")
    @store_option
    def import_(path, annotator, store_path) -> None:
        """Read annotations from JSONL; all or nothing, checked against the store.

        \b
        Example:
          workbench annotations import out/annotations.jsonl
        """
        from workbench.annotation.jsonl import import_annotations
        n = import_annotations(annotation_store(store_path), path, annotator)
        click.echo(f"imported {n} annotations from {path}")

    @annotations.command("agreement")
    @click.option("-r", "--run", "runs", multiple=True, help="Only these runs; repeat.")
    @click.option("-a", "--annotator", "annotators", multiple=True, help="Only these annotators; repeat.")
    @click.option("--sample", "sample_name", default=None,
                  help="Only the pseudonyms of this named sample (see `workbench annotations status`).")
    @store_option
    def agreement_(runs, annotators, sample_name, store_path) -> None:
        """Cohen's kappa per annotator pair and Fleiss' kappa; each LLM judge's kappa against every annotator.

        \b
        Example:
          workbench annotations agreement -a anna -a bo
          workbench annotations agreement --sample session-1
        """
        from workbench.annotation.agreement_report import agreement_report
        for line in agreement_report(annotation_store(store_path), runs, annotators, sample_name).lines():
            click.echo(line)

    @annotations.command("judge")
    @click.argument("runs", nargs=-1, metavar="RUN...")
    @click.option("--model", default=None, help="The Ollama model that judges (default: the ollama generator's).")
    @click.option("--sample", "sample_name", default=None,
                  help="Judge this named sample (only its pseudonyms of RUN…, when runs are given).")
    @click.option("--per-run", type=click.IntRange(1), default=60, show_default=True,
                  help="Without --sample: pseudonyms per run, drawn as `annotations sample` draws them.")
    @click.option("--unit", type=click.Choice(["document", "span"]), default="document", show_default=True,
                  help="Without --sample: how the pseudonyms are drawn (as `annotations sample --unit`).")
    @click.option("--seed", type=int, default=0, show_default=True, help="The sample's seed.")
    @click.option("--redo", is_flag=True, help="Ask again the pseudonyms this judge tagged with this prompt.")
    @click.option("-o", "--option", "options", multiple=True, metavar="NAME=VALUE",
                  help="Ollama client setting, e.g. -o host=http://127.0.0.1:11500 -o attempts=3; see docs/judge.md.")
    @store_option
    def judge(runs, model, sample_name, per_run, unit, seed, redo, options, store_path) -> None:
        """An LLM judge tags each sampled pseudonym with 003's tagset, stored as annotator judge:MODEL.

        The pseudonyms are a human session's: --sample NAME, or the runs drawn with the same
        --per-run/--unit/--seed as `annotations sample`. Items the judge could not tag after its
        attempts are counted as faults and asked again by the next call. Its Cohen's kappa
        against every annotator: `workbench annotations agreement`.

        \b
        Example:
          workbench annotations judge 832a7ed4 2d97c2f2 --model qwen2.5:1.5b-instruct --per-run 60
          workbench annotations judge --sample session-1 --model qwen2.5:1.5b-instruct
        """
        from workbench.annotation.judge import JudgeConfig, judge_items, judge_sample
        from workbench.cli._options import name_value_pairs
        from workbench.infra.plugins import build_config
        values = name_value_pairs(options, "-o/--option") | ({"redo": True} if redo else {})
        if model is not None:
            values["model"] = model
        config = build_config(JudgeConfig, values, what="the judge")
        store = annotation_store(store_path)
        items = judge_sample(store, runs, sample=sample_name, per_run=per_run, unit=unit, seed=seed)
        summary = judge_items(store, items, config)
        click.echo(f"{summary.judge} (prompt {summary.prompt_version}): {summary.items} pseudonyms, "
                   f"{summary.tagged} tagged now, {summary.kept} tagged before, {summary.faults} faults, "
                   f"{summary.requests} requests in {summary.seconds:.1f} s")
        for tag, n in sorted(summary.tags.items(), key=lambda kv: store.tagset.rank(kv[0])):
            click.echo(f"    {tag:<20} {n:>5}")
        for reason, n in summary.reasons.items():
            click.echo(f"    fault: {reason} ({n})")
        verdict = summary.verdict  # as `workbench generate`: 3 unreachable, 4 server errors or nothing tagged
        if verdict.exit_code:
            click.echo(verdict.error(unit="pseudonym", failed="not judged",
                                     remedy="rerun this command (it asks only those)"), err=True)
            raise SystemExit(verdict.exit_code)

    @annotations.command("simulate")
    @click.argument("sample_name", metavar="SAMPLE")
    @click.option("--name", "names", multiple=True,
                  help="A simulated annotator's name; repeat (default: sim-1, sim-2).")
    @click.option("--flip", type=click.FloatRange(0, 1), default=0.2, show_default=True,
                  help="Chance per pseudonym that an annotator gives another tag than the rule's.")
    @click.option("--seed", type=int, default=0, show_default=True, help="Seed of the annotators' departures.")
    @store_option
    def simulate(sample_name, names, flip, seed, store_path) -> None:
        """Tag a sample as simulated annotators (a seeded rule, docs/judge.md), to measure a judge before people do.

        \b
        Example:
          workbench annotations simulate session-1 --name sim-1 --name sim-2 --flip 0.2
        """
        from workbench.annotation.judge_simulated import DEFAULT_NAMES
        from workbench.annotation.judge_simulated import simulate as simulate_tags
        store = annotation_store(store_path)
        made = simulate_tags(store, store.sample(sample_name), names or DEFAULT_NAMES, flip, seed)
        click.echo(f"sample {sample_name}: {len(made)} simulated tags by {', '.join(names or DEFAULT_NAMES)}")

    @annotations.command("table6")
    @click.option("-o", "--output", "outdir", type=click.Path(file_okay=False), required=True,
                  help="The folder to write into.")
    @click.option("-r", "--run", "runs", multiple=True, help="Only these runs; repeat.")
    @click.option("--annotator", default=None, help="Use this annotator's tags (default: the majority).")
    @store_option
    def table6(outdir, runs, annotator, store_path) -> None:
        """Write 003 Table 6 (CSV, Markdown, LaTeX; also per entity label) and Figure 2 (PNG) of the annotations.

        \b
        Example:
          workbench annotations table6 -o out/annotation
        """
        from workbench.annotation.results import write_table6_report
        from workbench.annotation.sampling import resolve_run_ids
        store = annotation_store(store_path)
        report = write_table6_report(store, outdir, resolve_run_ids(store.run_store, runs), annotator)
        click.echo(report.table.to_string(float_format=lambda v: f"{v:.4f}"))
        click.echo("wrote " + ", ".join(str(p) for p in report.paths))
