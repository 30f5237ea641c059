"""`workbench validate`: every problem of a corpus file, before a run is started on it."""

from __future__ import annotations

import click

from workbench.cli._options import corpus_reading_options


def register(main: click.Group) -> None:
    @main.command("validate")
    @click.argument("corpus_file")
    @corpus_reading_options
    def validate(corpus_file, corpus_format, lang, spans, quality_checked, annotator) -> None:
        """Load a corpus file as `generate` would and list every error and warning, per document and span.

        Errors (a span outside the text, overlapping spans, an unknown language, a JSONL
        line that is not JSON …) stop `generate` at the first; here every one is listed with
        its document, span or line number, and the file is read on. Warnings (a span edge
        inside a word, text not in Unicode NFC) stop nothing. The summary says the text's
        normal form ("text: NFC"). Exits 2 when there is an error, 0 otherwise. Writes nothing.

        \b
        Example:
          workbench validate my_corpus.jsonl
          workbench validate texts.json --format tab-pair --spans spans.json
        """
        from workbench.infra.errors import WorkbenchError
        from workbench.infra.terminal import printable
        from workbench.loaders.check import check_corpus
        check = check_corpus(corpus_file, format=corpus_format, lang=lang, spans=spans, annotator=annotator,
                             quality_checked_only=quality_checked)
        for problem in check.problems:
            click.echo(printable(str(problem)))
        summary = (f"{corpus_file}: {check.documents} document(s), {check.spans} span(s) loaded; "
                   f"{check.errors} error(s), {check.warnings} warning(s)"
                   + (f"; text: {check.text_form}" if check.text_form else ""))
        if check.errors:
            raise WorkbenchError(summary)
        click.echo(summary)
