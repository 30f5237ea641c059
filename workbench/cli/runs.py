"""`workbench runs`, `show` and `export`: looking at stored runs."""

from __future__ import annotations

import textwrap

import click

from workbench.cli._options import open_store, store_option


def register(main: click.Group) -> None:
    @main.command("runs")
    @store_option
    @click.option("--signatures", is_flag=True, help="Print each run's full signature.")
    def runs(store_path, signatures) -> None:
        """List the stored runs.

        \b
        Example:
          workbench runs --signatures
        """
        store = open_store(store_path)
        for r in store.runs():
            n = len(store.done_keys(r.run_id))
            click.echo(f"{r.run_id}  {r.corpus_name:<11} {r.generator:<9} {r.mode:<5} "
                       f"upos={'on ' if r.upos_filter else 'off'} {n:>5}/{r.n_slots:<5} {r.status}  {r.model}")
            if signatures:
                click.echo(f"    {r.signature}")

    @main.command("show")
    @click.argument("run_id")
    @click.argument("doc_id", required=False)
    @store_option
    @click.option("--width", type=click.IntRange(40), default=70, show_default=True, help="Width of each column.")
    @click.option("--spans-only", is_flag=True, help="Only the table of original → replacement.")
    def show(run_id, doc_id, store_path, width, spans_only) -> None:
        """Show a document of a run: original and pseudonymised side by side.

        Replacements are marked ⟦like this⟧ on both sides. Without DOC_ID, the run's
        documents are listed.

        \b
        Example:
          workbench show 832a7ed4 gv-eng-swe-105_ENG
        """
        from workbench.replace import pseudonymise
        from workbench.text.sentences import merge_across_spans, split_sentences

        store = open_store(store_path)
        run = store.run(run_id)
        corpus = store.load_corpus(run.corpus_hash)
        if doc_id is None:
            for d in corpus.documents:
                click.echo(f"{d.doc_id}  {d.lang}  {len(d.masked_spans)} spans")
            return
        doc = corpus.document(doc_id)
        picks = {p.span_index: p.pseudonym for p in store.predictions(run.run_id) if p.doc_id == doc_id}
        click.echo(f"run {run.run_id}  {run.signature}\n")
        for i in sorted(picks):
            s = doc.spans[i]
            click.echo(f"{i:>4} {s.label:<14} {s.text!r:<40} → {picks[i]!r}")
        if spans_only:
            return
        marked_original, _ = pseudonymise(doc, {i: f"⟦{doc.spans[i].text}⟧" for i in picks})
        marked_new, _ = pseudonymise(doc, {i: f"⟦{p}⟧" for i, p in picks.items()})
        click.echo("")
        # Sentence by sentence, so the two columns stay aligned.
        for left, right in zip(_sentences(marked_original, doc.lang), _sentences(marked_new, doc.lang)):
            lw, rw = textwrap.wrap(left, width) or [""], textwrap.wrap(right, width) or [""]
            for a, b in zip(lw + [""] * (len(rw) - len(lw)), rw + [""] * (len(lw) - len(rw))):
                click.echo(f"{a:<{width}} │ {b}")
            click.echo(f"{'':<{width}} │")

    @main.command("export")
    @click.argument("run_id")
    @click.option("--format", "fmt", type=click.Choice(["tab", "intact", "doccano", "csv", "parquet"]), required=True)
    @click.option("-o", "--output", type=click.Path(dir_okay=False), required=True)
    @store_option
    def export(run_id, fmt, output, store_path) -> None:
        """Export a run: TAB-masked or INTACT-style JSON, doccano JSONL, CSV or Parquet.

        \b
        Example:
          workbench export 832a7ed4 --format intact -o out/run.json
        """
        from workbench.exporters import export_run
        path = export_run(open_store(store_path), run_id, fmt, output)
        click.echo(f"wrote {path}")


def _sentences(text: str, lang: str) -> list[str]:
    from workbench.text.sentences import split_sentences
    # Marked texts differ in length, so each side is split on its own; markers never hold
    # a sentence end, so both sides split into the same number of sentences in practice.
    return [text[a:b] for a, b in split_sentences(text, lang)]
