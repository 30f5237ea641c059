"""`workbench import-run`: another system's replacements, stored as a run to be scored."""

from __future__ import annotations

import click

from workbench.cli._options import corpus_options, load_corpus_from_options, open_store, store_option
from workbench.exchange.entry_conflicts import ON_CONFLICT, ON_CONFLICT_DEFAULT
from workbench.exchange.importers import MISSING
from workbench.upos.factory import DEFAULT_TAGGER, TAGGERS


def register(main: click.Group) -> None:
    @main.command("import-run")
    @click.argument("file", type=click.Path(dir_okay=False))
    @corpus_options
    @click.option("--name", default="imported", show_default=True,
                  help="What the run is called in tables (its generator column).")
    @click.option("--mode", default="external", show_default=True,
                  help="The external system's mode, for the tables (e.g. maskL, repL).")
    @click.option("--upos-filter", is_flag=True, help="Mark the external run as UPOS-filtered (tables only).")
    @click.option("--missing", type=click.Choice(MISSING), default=None,
                  help="A span no entry meets: keep its original text (default; it counts as a leak), or stop "
                       "with an error (default with --strict).")
    @click.option("--on-conflict", type=click.Choice(ON_CONFLICT), default=ON_CONFLICT_DEFAULT, show_default=True,
                  help="Entries for one span with different replacements, or two entries crossing each other: "
                       "the first (or last) in file order stands and the others are dropped, counted and shown "
                       "in the report; error refuses the file. Not used with --strict (which refuses any repeat).")
    @click.option("--strict", is_flag=True,
                  help="The exact rule: every entry one corpus span, listed once, non-empty; no alignment.")
    @click.option("--whole-corpus", is_flag=True,
                  help="Import over every document of the corpus, even those the file does not name (their "
                       "spans keep their original text and count as leaks). Without it, the run is over the "
                       "documents the file names, as --docs would select them.")
    @click.option("--tagger", type=click.Choice(TAGGERS), default=DEFAULT_TAGGER, show_default=True,
                  help="UPOS tagger for the original spans (as for generated runs).")
    @store_option
    def import_run(file, corpus, corpus_format, lang, spans, quality_checked, annotator, docs, skip_docs, name,
                   mode, upos_filter, missing, on_conflict, strict, whole_corpus, tagger, store_path) -> None:
        """Import {doc_id: [[start, end, replacement], ...]} against a corpus as a run.

        The offsets are the corpus's original character offsets (the INTACT/TAE format,
        which `workbench export --format intact` writes); a TAB masking file
        {doc_id: [[start, end], ...]} imports as suppression. Entries are aligned to the
        corpus's spans (workbench/exchange/alignment.py: nested, repeated, descending, empty =
        suppression, partly overlapping) and the alignment report is printed and stored
        with the run (its examples give spans by offsets and label, never their original
        text). Two replacements for one span, or two entries crossing each other, are
        settled by --on-conflict (the first in file order stands, by default) and counted
        in the report. Errors name the file, document and entry, and nothing is stored.

        A file that names only some of the corpus's documents imports those documents (the
        run's corpus is e.g. tab-test:2docs, as with --docs); --whole-corpus imports over
        all of them. The summary line warns with the count of spans that kept their
        original text.

        \b
        Example:
          workbench import-run TAB_test_Manual_INTACT.json -c tab-test --name intact
          workbench import-run TAB_test_Presidio.json -c tab-test --name presidio
          workbench report <run id> --out out/intact
        """
        from workbench.exchange.alignment_report import alignment_lines
        from workbench.exchange.importers import prepare_import, store_import, summary_line
        from workbench.infra.terminal import printable
        from workbench.upos import get_tagger

        loaded = load_corpus_from_options(corpus, corpus_format, lang, spans, quality_checked, annotator, docs,
                                          skip_docs)
        langs = tuple(sorted({d.lang for d in loaded.documents}))
        chosen = get_tagger(tagger, langs=langs)
        # The file is checked before the store is opened: a refused file makes no store file.
        checked = prepare_import(file, loaded, tagger=chosen, name=name, mode=mode,
                                 upos_filter=upos_filter, missing=missing, strict=strict,
                                 whole_corpus=whole_corpus, on_conflict=on_conflict)
        store = open_store(store_path)
        record = store_import(store, checked, chosen)
        click.echo(printable(summary_line(store, record, loaded, file)))
        click.echo(f"  {printable(record.signature)}")
        for line in alignment_lines(store, record.run_id):
            click.echo(line)
