"""`workbench runs`, `show` and `export`: looking at stored runs (read-only; none creates a store).

A store the user cannot write, or one given as `file:PATH?mode=ro`, is opened read-only.
"""

from __future__ import annotations

import click

from workbench.cli._options import open_existing_store, store_option


def register(main: click.Group) -> None:
    from workbench.exchange.exporters import FORMATS

    @main.command("runs")
    @store_option
    @click.option("--signatures", is_flag=True, help="Print each run's full signature.")
    @click.option("--delete", "delete", multiple=True, metavar="RUN",
                  help="Delete this run (id or unique prefix; repeatable) and everything stored for it: its "
                       "pseudonyms, privacy results, reports, and its corpus snapshot when no other run uses it.")
    @click.option("--yes", is_flag=True, help="Delete without asking (needed when stdin is not a terminal).")
    @click.option("--with-annotations", is_flag=True,
                  help="Also delete the runs' error annotations and take them out of annotation samples "
                       "(without it, an annotated run is not deleted).")
    @click.option("--ids", is_flag=True,
                  help="Print only the run ids, one a line, no header (for scripts: "
                       "`workbench privacy infer $(workbench runs --ids)`).")
    @click.option("--corpus", "corpora", multiple=True, metavar="NAME",
                  help="Only the runs of this corpus (its name as listed, e.g. tab-test:16docs; repeatable).")
    @click.option("--generator", "generators", multiple=True, metavar="NAME",
                  help="Only the runs of this generator (repeatable).")
    def runs(store_path, signatures, delete, yes, with_annotations, ids, corpora, generators) -> None:
        """List the stored runs, or delete some.

        Columns are as wide as their longest entry, so they line up whatever the names.
        A deletion is one transaction; it asks for confirmation on a terminal, and without
        a terminal (a script, a pipe) it needs --yes. A run being generated is not deleted.

        \b
        Example:
          workbench runs --signatures
          workbench runs --ids --corpus tab-test:16docs
          workbench runs --delete 832a7ed4 --yes
        """
        from workbench.infra.errors import WorkbenchError
        if delete:
            if ids or corpora or generators:
                raise WorkbenchError("--delete takes the runs to delete by id; it cannot be combined with "
                                     "--ids, --corpus or --generator")
            _delete(store_path, list(delete), yes, with_annotations)
            return
        if ids and signatures:
            raise WorkbenchError("--ids prints only the run ids; leave out --signatures")
        from workbench.views.runs import run_lines, selected_runs
        store = open_existing_store(store_path)
        if ids:  # nothing but ids on stdout, even when there are none: scripts read it
            chosen = selected_runs(store, corpora=corpora, generators=generators)
            for run in chosen:
                click.echo(run.run_id)
            if not chosen:
                click.echo(f"no runs in {store.path}" + (" with that corpus or generator" if corpora or generators
                                                          else ""), err=True)
            return
        for line in run_lines(store, signatures=signatures, corpora=corpora, generators=generators):
            click.echo(line)

    @main.command("show")
    @click.argument("run_id")
    @click.argument("doc_id", required=False)
    @store_option
    @click.option("--width", type=click.IntRange(40), default=70, show_default=True, help="Width of each column.")
    @click.option("--spans-only", is_flag=True, help="Only the table of original → replacement.")
    def show(run_id, doc_id, store_path, width, spans_only) -> None:
        """Show a document of a run: original and pseudonymised side by side.

        Replacements are marked ⟦like this⟧ on both sides; control characters in texts are
        shown escaped (\\x1b, \\n). Without DOC_ID, the run's documents are listed.

        \b
        Example:
          workbench show 832a7ed4 gv-eng-swe-105_ENG
        """
        from workbench.views.show import show_run
        for line in show_run(open_existing_store(store_path), run_id, doc_id, width=width, spans_only=spans_only):
            click.echo(line)

    @main.command("export")
    @click.argument("run_id")
    @click.option("--format", "fmt", type=click.Choice(FORMATS), required=True,
                  help="What each format holds is listed above.")
    @click.option("-o", "--output", type=click.Path(dir_okay=False), required=True, help="The file to write.")
    @click.option("--unfinished", is_flag=True,
                  help="Export a run that is not complete: spans not generated yet are written as "
                       "[MASKED:LABEL], never as their original text.")
    @click.option("--with-originals", is_flag=True,
                  help="For analysis, not for sharing: csv/parquet add the `original` column and the workbench's "
                       "readable entity ids (DOC|LABEL|name); doccano writes the corpus file's own entity ids.")
    @click.option("--inline", is_flag=True,
                  help="provenance: also write the text with each span marked inline, [Sven]{PERSON} "
                       "(FILE's stem + .inline.txt).")
    @store_option
    def export(run_id, fmt, output, unfinished, with_originals, inline, store_path) -> None:
        """Export a run: TAB-masked or INTACT-style JSON, doccano JSONL, CSV, Parquet or provenance.

        By default the file is shareable: no format holds the original text of a span to
        replace, and entities are opaque keys (DOC|e001, numbered per document in order of
        first mention, the same in every export of runs over the corpus). Only a replacement
        that is its original stays (the `original` reference run, pseudonyms equal to their
        original). --with-originals is for analysis.

        \b
        tab      offsets of the masked spans; no text at all
        intact   offsets and replacements; no original text
        doccano  the pseudonymised documents, replacements labelled (PERSON, LOC …); a corpus
                 file that loads back, with entity keys where the corpus file stated entities
        csv      a row per span (workbench.store.tidy_frame) without `original`, entity_id a key;
                 with --with-originals: `original` and readable entity ids
        parquet  as csv
        provenance  the pseudonymised documents with a stand-off record per span (offsets,
                 label, pseudonym, generator, settings, seed, realistic or mark); the key
                 (original <-> pseudonym) in a file of its own, FILE's stem +
                 .KEY-personal-data.json, which is personal data: keep it apart

        An error-annotation task for doccano is `workbench doccano export-task`.

        \b
        Example:
          workbench export 832a7ed4 --format intact -o out/run.json
          workbench export 832a7ed4 --format csv -o out/run.csv
          workbench export 832a7ed4 --format parquet --with-originals -o private/run.parquet
          workbench export 832a7ed4 --format provenance --inline -o release/run.json
        """
        from workbench.exchange.exporters import export_companions, export_run, unfilled_spans
        from workbench.exchange.provenance import KEY_WARNING
        store = open_existing_store(store_path)
        path = export_run(store, run_id, fmt, output, unfinished=unfinished, with_originals=with_originals,
                          inline=inline)
        click.echo(f"wrote {path}")
        for kind, companion in export_companions(fmt, path, inline=inline).items():
            click.echo(f"wrote {companion}")
            if kind == "key":
                click.echo(f"warning: {companion} {KEY_WARNING}", err=True)
        masked = unfilled_spans(store, store.resolve_run(run_id))
        if masked:
            click.echo(f"the run is not complete: {masked} span(s) not generated yet are written as "
                       "[MASKED:LABEL], not as their original text", err=True)


def _delete(store_path, prefixes: list[str], yes: bool, with_annotations: bool) -> None:
    import sys

    from workbench.infra.errors import WorkbenchError
    from workbench.store.run_deletion import delete_runs, plan_deletion
    store = open_existing_store(store_path)
    planned = plan_deletion(store, prefixes, with_annotations=with_annotations)
    click.echo("to delete:")
    for line in planned.lines():
        click.echo(line)
    if not yes:
        if not sys.stdin.isatty():
            raise WorkbenchError("nothing deleted: stdin is not a terminal, so nobody can confirm; pass --yes")
        if not click.confirm("delete these runs and everything stored for them?", default=False):
            click.echo("nothing deleted")
            return
    for run in delete_runs(store, prefixes, with_annotations=with_annotations).runs:
        click.echo(f"deleted run {run.run_id}")
