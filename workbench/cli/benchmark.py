"""`workbench benchmark NAME`: rerun a named configuration and write its report."""

from __future__ import annotations

import click

from workbench.cli._options import open_store, store_option


def register(main: click.Group) -> None:
    @main.command("benchmark")
    @click.argument("name", required=False)
    @store_option
    @click.option("--out", type=click.Path(file_okay=False), default=None,
                  help="Folder for the report (default: out/NAME).")
    @click.option("--batch-size", type=click.IntRange(1), default=32, show_default=True)
    @click.option("--tagger", type=click.Choice(["auto", "stanza", "spacy"]), default="auto", show_default=True)
    @click.option("--no-report", is_flag=True, help="Only generate the runs.")
    @click.option("--progress/--no-progress", default=True, show_default=True)
    def benchmark(name, store_path, out, batch_size, tagger, no_report, progress) -> None:
        """Generate every run of a named benchmark (resuming any unfinished one) and report them.

        NAME is a shipped configuration (listed when NAME is left out) or a TOML file.

        \b
        Example:
          workbench benchmark baselines --out out/baselines
        """
        from workbench.benchmark import load_benchmark, shipped_benchmarks
        from workbench.engine import run_generation
        from workbench.generators import GenerationOptions, create_generator
        from workbench.loaders import load_corpus
        from workbench.loaders.subset import select_documents
        from workbench.upos import get_tagger

        if name is None:
            for shipped in shipped_benchmarks():
                click.echo(f"{shipped:<16} {load_benchmark(shipped).description}")
            return
        config = load_benchmark(name)
        store = open_store(store_path)
        corpora, run_ids = {}, []
        for planned in config.runs:
            key = (planned.corpus, planned.docs, planned.skip_docs)
            if key not in corpora:
                corpora[key] = select_documents(load_corpus(planned.corpus), keep=planned.docs, skip=planned.skip_docs)
            corpus = corpora[key]
            options = GenerationOptions(mode=planned.mode, upos_filter=planned.upos_filter, window=planned.window,
                                        seed=planned.seed, top_k=planned.top_k, leak_guard=planned.leak_guard)
            gen = create_generator(planned.generator, dict(planned.settings), options)
            langs = tuple(sorted({d.lang for d in corpus.documents}))
            record = run_generation(store, corpus, gen, get_tagger(tagger, langs=langs, quiet=bool(run_ids)),
                                    batch_size=batch_size, progress=progress)
            run_ids.append(record.run_id)
            click.echo(f"{record.run_id}  {corpus.name:<11} {planned.generator:<9} {planned.mode:<5} "
                       f"upos={'on ' if planned.upos_filter else 'off'} {record.status}")
        if no_report:
            return
        try:
            from workbench.reports import write_report
        except ImportError:
            click.echo("(reports are not available in this version; runs are stored)")
            return
        written = write_report(store, run_ids, out or f"out/{config.name}")
        click.echo(f"report written to {out or f'out/{config.name}'} ({len(written)} files)")
