"""`workbench privacy known-pair`: what one known original-pseudonym pair reveals of the rest of a document."""

from __future__ import annotations

import click

from workbench.cli._options import open_existing_store, store_option
from workbench.cli.privacy_reid import _privacy_group


def register(main: click.Group) -> None:
    @_privacy_group(main).command("known-pair")
    @click.argument("run_ids", nargs=-1, required=True, metavar="RUN...")
    @click.option("--background", is_flag=False, flag_value="shipped", default=None, metavar="[FILE]",
                  help="Only the pairs background knowledge reveals are known: spans whose original the public "
                       "text about the document states (JSON {doc_id: text}; bare --background: the corpus's "
                       "shipped one, tab-test has one). Stored apart; the report shows the attack without it.")
    @store_option
    def known_pair(run_ids, background, store_path) -> None:
        """Known-pair attack: the share of other spans recovered from one known original-pseudonym pair.

        Each span of a document is the known pair in turn; the attacker inverts the run's
        mapping (a date offset, a name map) and applies it to the other spans. Shown per
        run and label, for dates and other values; stored with the run for `workbench report`.

        \b
        Example:
          workbench privacy known-pair 832a7ed4 5be0c1aa
          workbench privacy known-pair 832a7ed4 --background
        """
        from workbench.privacy.known_pair_runs import known_pair_lines, known_pair_risk
        store = open_existing_store(store_path)  # the runs to attack must be stored already
        for line in known_pair_lines(store, known_pair_risk(store, run_ids, background)):
            click.echo(line)
