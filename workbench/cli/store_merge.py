"""`workbench store merge SRC… --into DST`: several run stores into one (workbench.store.merge)."""

from __future__ import annotations

import click


def register(main: click.Group) -> None:
    @main.group("store")
    def store() -> None:
        """Whole store files: merging stores made on other machines or laptops.

        \b
        Example:
          workbench store merge anna.sqlite bo.sqlite --into runs.sqlite
        """

    @store.command("merge")
    @click.argument("sources", nargs=-1, required=True, type=click.Path(dir_okay=True))
    @click.option("--into", "into", required=True, type=click.Path(dir_okay=False),
                  help="The store to merge into (created if missing).")
    def merge(sources, into) -> None:
        """Merge the runs, predictions, annotations and privacy results of SOURCES into one store.

        Rows are matched by run id (and document, span, annotator…). The same run with different
        predictions, the same annotator's different tag, or a store of a newer schema is refused
        with the run or file named, and then nothing is merged (one transaction). Merging again
        adds nothing. The sources are only read; an older one is migrated as a temporary copy.

        \b
        Example:
          workbench store merge laptop-anna.sqlite laptop-olle.sqlite --into runs.sqlite
        """
        from workbench.store.merge import merge_stores
        for line in merge_stores(sources, into).lines():
            click.echo(line)
