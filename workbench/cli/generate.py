"""`workbench generate`: one generator over one corpus, stored as a (resumable) run."""

from __future__ import annotations

import click

from workbench.cli._options import corpus_options, load_corpus_from_options, open_store, store_option


def generation_options(func):
    """The options every generator honours (GenerationOptions)."""
    for decorator in reversed([
        click.option("-g", "--generator", required=True, help="Generator name (see `workbench generators`)."),
        click.option("--mode", type=click.Choice(["maskL", "repL"]), default="maskL", show_default=True,
                     help="maskL: every span in the window masked; repL: spans left of the target carry earlier picks."),
        click.option("--upos-filter/--no-upos-filter", default=False, show_default=True,
                     help="Pick the first top-k candidate with the original's UPOS (003 §4)."),
        click.option("--window", type=click.IntRange(0), default=2, show_default=True,
                     help="Sentences of context either side of the target sentence."),
        click.option("--seed", type=int, default=13, show_default=True),
        click.option("--top-k", type=click.IntRange(1), default=10, show_default=True),
        click.option("--leak-guard/--no-leak-guard", default=False, show_default=True,
                     help="Refuse candidates overlapping the original span (003 §5.2)."),
        click.option("--model", default=None, help="Model id or local path (generators with a model)."),
        click.option("--option", "-o", "extra", multiple=True, metavar="NAME=VALUE",
                     help="A generator-specific setting, checked against its config (repeatable)."),
        click.option("--batch-size", type=click.IntRange(1), default=32, show_default=True),
        click.option("--tagger", type=click.Choice(["auto", "stanza", "spacy"]), default="auto", show_default=True,
                     help="UPOS tagger; auto = stanza if its models are installed, else the offline spaCy UD taggers."),
    ]):
        func = decorator(func)
    return func


def parse_generator_settings(model: str | None, extra: tuple[str, ...]) -> dict[str, str]:
    from workbench.errors import WorkbenchError
    settings = {}
    for item in extra:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise WorkbenchError(f"--option takes NAME=VALUE, not {item!r}")
        settings[name] = value
    if model is not None:
        settings["model"] = model
    return settings


def register(main: click.Group) -> None:
    @main.command("generate")
    @corpus_options
    @generation_options
    @store_option
    @click.option("--progress/--no-progress", default=True, show_default=True)
    def generate(corpus, corpus_format, lang, spans, quality_checked, annotator, docs, skip_docs, generator, mode, upos_filter, window,
                 seed, top_k, leak_guard, model, extra, batch_size, tagger, store_path, progress) -> None:
        """Generate pseudonyms for every span of a corpus and store them as a run.

        Running the same command again resumes an interrupted run (or reports the
        finished one); nothing is generated twice.

        \b
        Example:
          workbench generate -c pgv-pii-sv -g upos --mode repL
          workbench generate -c tab-test -g random --leak-guard
        """
        from workbench.engine import run_generation
        from workbench.generators import GenerationOptions, create_generator
        from workbench.upos import get_tagger

        loaded = load_corpus_from_options(corpus, corpus_format, lang, spans, quality_checked, annotator,
                                          docs, skip_docs)
        options = GenerationOptions(mode=mode, upos_filter=upos_filter, window=window, seed=seed, top_k=top_k,
                                    leak_guard=leak_guard)
        gen = create_generator(generator, parse_generator_settings(model, extra), options)
        store = open_store(store_path)
        langs = tuple(sorted({d.lang for d in loaded.documents}))
        record = run_generation(store, loaded, gen, get_tagger(tagger, langs=langs), batch_size=batch_size,
                                progress=progress)
        failed = sum(p.failed for p in store.predictions(record.run_id))
        click.echo(f"run {record.run_id} {record.status}: {record.n_slots} spans, {failed} FAILED")
        click.echo(f"  {record.signature}")
