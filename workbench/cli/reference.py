"""`workbench reference` (reference anonymisations as runs) and `workbench run-report` (a run's stored reports)."""

from __future__ import annotations

import click

from workbench.cli._options import (
    corpus_options,
    load_corpus_from_options,
    open_existing_store,
    open_store,
    store_option,
)


def register(main: click.Group) -> None:
    from workbench.exchange.reference import KINDS
    from workbench.upos.factory import DEFAULT_TAGGER, TAGGERS

    @main.command("reference")
    @corpus_options
    @click.option("--kind", "kinds", type=click.Choice(KINDS), multiple=True, required=True,
                  help="original (nothing replaced), suppress (spans removed), label (the entity type); repeatable.")
    @click.option("--numbered", is_flag=True, help="label: number the type per entity in a document (PERSON_1).")
    @click.option("--tagger", type=click.Choice(TAGGERS), default=DEFAULT_TAGGER, show_default=True,
                  help="UPOS tagger for the original spans (as for generated runs).")
    @store_option
    def reference(corpus, corpus_format, lang, spans, quality_checked, annotator, docs, skip_docs, kinds, numbered,
                  tagger, store_path) -> None:
        """Store reference anonymisations of a corpus as runs, to score beside generators.

        \b
        Example:
          workbench reference -c tab-test --kind original --kind suppress --kind label
          workbench reference -c tab-test --kind label --numbered
        """
        from workbench.exchange.reference import generator_name, numbered_for, reference_run
        from workbench.infra.terminal import printable
        from workbench.upos import get_tagger

        numbering = numbered_for(kinds, numbered)  # --numbered goes to the kinds it applies to (label)
        for kind in kinds:  # checked before anything is stored
            generator_name(kind, numbering[kind])
        loaded = load_corpus_from_options(corpus, corpus_format, lang, spans, quality_checked, annotator, docs,
                                          skip_docs)
        tagging = get_tagger(tagger, langs=tuple(sorted({d.lang for d in loaded.documents})))
        store = open_store(store_path)
        for kind in kinds:
            record = reference_run(store, loaded, kind, numbered=numbering[kind], tagger=tagging)
            click.echo(f"run {record.run_id} {record.status}: {printable(record.generator)} over "
                       f"{record.n_slots} spans of {printable(record.corpus_name)}")

    @main.command("run-report")
    @click.argument("run_id")
    @store_option
    def run_report(run_id, store_path) -> None:
        """Print what is stored with a run: an import's alignment report, a reference's summary.

        \b
        Example:
          workbench run-report 832a7ed4
        """
        import json

        from workbench.exchange.alignment_report import alignment_lines
        from workbench.infra.terminal import printable
        from workbench.store.run_reports import ALIGNMENT, run_reports
        store = open_existing_store(store_path)
        run = store.resolve_run(run_id)
        reports = run_reports(store, run.run_id)
        if not reports:
            click.echo(f"run {run.run_id} has no stored report")
        for kind, body in reports.items():
            if kind == ALIGNMENT:
                for line in alignment_lines(store, run.run_id):
                    click.echo(line)
            else:
                click.echo(f"{printable(kind)}: {printable(json.dumps(body, ensure_ascii=False, sort_keys=True))}")
