"""`workbench import-run`: another system's replacements, stored as a run to be scored."""

from __future__ import annotations

import click

from workbench.cli._options import corpus_options, load_corpus_from_options, open_store, store_option
from workbench.importers import MISSING
from workbench.upos.factory import TAGGERS


def register(main: click.Group) -> None:
    @main.command("import-run")
    @click.argument("file", type=click.Path(dir_okay=False))
    @corpus_options
    @click.option("--name", default="imported", show_default=True,
                  help="What the run is called in tables (its generator column).")
    @click.option("--mode", default="external", show_default=True,
                  help="The external system's mode, for the tables (e.g. maskL, repL).")
    @click.option("--upos-filter", is_flag=True, help="Mark the external run as UPOS-filtered (tables only).")
    @click.option("--missing", type=click.Choice(MISSING), default="error", show_default=True,
                  help="A span with no replacement: stop with an error, or keep its original text.")
    @click.option("--tagger", type=click.Choice(TAGGERS), default="auto", show_default=True,
                  help="UPOS tagger for the original spans (as for generated runs).")
    @store_option
    def import_run(file, corpus, corpus_format, lang, spans, quality_checked, annotator, docs, skip_docs, name,
                   mode, upos_filter, missing, tagger, store_path) -> None:
        """Import {doc_id: [[start, end, replacement], ...]} against a corpus as a run.

        The offsets are the corpus's original character offsets (the format
        `workbench export --format intact` writes). The file is checked in full
        before anything is stored; errors name the file, document and entry.

        \b
        Example:
          workbench import-run intact.json -c tab-test --name intact
          workbench report <run id> --out out/intact
        """
        from workbench.importers import import_run as do_import
        from workbench.upos import get_tagger

        loaded = load_corpus_from_options(corpus, corpus_format, lang, spans, quality_checked, annotator, docs,
                                          skip_docs)
        langs = tuple(sorted({d.lang for d in loaded.documents}))
        record = do_import(open_store(store_path), file, loaded, tagger=get_tagger(tagger, langs=langs), name=name,
                           mode=mode, upos_filter=upos_filter, missing=missing)
        click.echo(f"run {record.run_id} {record.status}: {record.n_slots} spans imported from {file}")
        click.echo(f"  {record.signature}")
