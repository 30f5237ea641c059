"""`workbench compare`: two runs on the same corpus, metric by metric, with a paired test."""

from __future__ import annotations

import click

from workbench.cli._options import open_existing_store, store_option


def register(main: click.Group) -> None:
    @main.command("compare")
    @click.argument("run_a", metavar="RUN_A")
    @click.argument("run_b", metavar="RUN_B")
    @click.option("--metric", "metrics", multiple=True, metavar="M",
                  help="A metric to compare (repeatable; default: those of the diversity, generation, upos, "
                       "overlap, borrowed and tpi families, which need no embedder or summariser).")
    @click.option("--csv", "csv_path", type=click.Path(dir_okay=False), default=None,
                  help="Also write the table, unrounded, to this CSV file.")
    @store_option
    def compare(run_a, run_b, metrics, csv_path, store_path) -> None:
        """A − B per metric with its 95 % paired-bootstrap interval and two p-values.

        The units are those the metric averages: documents, or spans resampled with their
        document. p: paired bootstrap and approximate randomisation (as sacrebleu compares
        systems), two-sided, 1,000 resamples and 10,000 trials from seed 13; not corrected
        for the number of metrics (a report's marks are: docs/metrics.md).

        \b
        Example:
          workbench compare 832a7ed4 2d97c2f2
          workbench compare 832a7ed4 2d97c2f2 --metric upos_accuracy --metric overlap_partial
        """
        from workbench.metrics.compare_runs import compare_runs, comparison_text
        store = open_existing_store(store_path)
        table = compare_runs(store, run_a, run_b, metrics=metrics)
        click.echo(comparison_text(table, store.resolve_run(run_a).run_id, store.resolve_run(run_b).run_id))
        if csv_path:
            table.to_csv(csv_path, index=False)
