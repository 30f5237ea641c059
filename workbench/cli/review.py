"""`workbench review …`: a person revises a run's pseudonyms (workbench.exchange.review_export,
review_import; through doccano: workbench.doccano.review)."""

from __future__ import annotations

import click

from workbench.cli._options import open_existing_store, store_option
from workbench.doccano.server import DEFAULT_URL
from workbench.infra.errors import WorkbenchError


def _doccano_options(func):
    func = click.option("--allow-remote", is_flag=True,
                        help="With --doccano: allow a server off this machine (the texts hold personal data).")(func)
    func = click.option("--password", envvar="DOCCANO_PASSWORD", default=None,
                        help="With --doccano: the doccano password (or $DOCCANO_PASSWORD).")(func)
    func = click.option("--username", envvar="DOCCANO_USERNAME", default="admin", show_default=True,
                        help="With --doccano: the doccano user (or $DOCCANO_USERNAME).")(func)
    func = click.option("--url", envvar="DOCCANO_URL", default=DEFAULT_URL, show_default=True,
                        help="With --doccano: the server (or $DOCCANO_URL); on this machine unless "
                             "--allow-remote.")(func)
    return func


def _client(url, username, password, allow_remote):
    from workbench.doccano.client import DoccanoClient
    if not password:
        raise WorkbenchError("--doccano needs the doccano password: --password or $DOCCANO_PASSWORD")
    return DoccanoClient(url, username, password, allow_remote=allow_remote)


def register(main: click.Group) -> None:
    @main.group("review")
    def review() -> None:
        """A person revises a run's pseudonyms: export for review, import the revisions as a new run.

        \b
        Example:
          workbench review export 2d97c2f2 -o review/run.csv
          workbench review import review/run.csv --reviewer anna
        """

    @review.command("export")
    @click.argument("run_id")
    @click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
                  help="The CSV to write (the marked documents go beside it as NAME.documents.txt).")
    @click.option("--doccano", "to_doccano", is_flag=True,
                  help="Push the review to a doccano server as a Seq2seq project instead (one example per span).")
    @click.option("--project", default=None, help="With --doccano: the project's name (default: workbench review RUN).")
    @_doccano_options
    @store_option
    def export(run_id, output, to_doccano, project, url, username, password, allow_remote, store_path) -> None:
        """Write a run for review: a CSV row per span with an empty `revised` column, and the documents.

        The CSV holds the original text of every span (the reviewer judges a pseudonym against
        it): it is personal data. Write a corrected pseudonym in `revised`, leave it empty to keep
        the pseudonym, and read the file back with `workbench review import`.
        """
        from workbench.exchange.review_export import PERSONAL_DATA_WARNING, export_review
        store = open_existing_store(store_path)
        if to_doccano:
            from workbench.doccano.review import push_review
            pushed = push_review(store, _client(url, username, password, allow_remote), run_id, name=project)
            click.echo(f"pushed {pushed.examples} spans to doccano project {pushed.project.name!r} "
                       f"(id {pushed.project.id}); `workbench review import {pushed.project.id} --doccano` "
                       "reads the revisions back")
            return
        if output is None:
            raise WorkbenchError("give the CSV to write with -o FILE.csv (or --doccano)")
        written = export_review(store, run_id, output)
        click.echo(f"wrote {written.rows} spans of run {written.run_id} to {written.csv} "
                   f"and the marked documents to {written.documents}")
        click.echo(f"warning: {written.csv} {PERSONAL_DATA_WARNING}", err=True)

    @review.command("import")
    @click.argument("source")
    @click.option("--reviewer", required=True, help="Who revised the pseudonyms (kept in the new run's record).")
    @click.option("--doccano", "from_doccano", is_flag=True,
                  help="SOURCE is a doccano review project (name or id), not a CSV file.")
    @_doccano_options
    @store_option
    def import_(source, reviewer, from_doccano, url, username, password, allow_remote, store_path) -> None:
        """Store a review's revisions as a new run: the parent run's pseudonyms with the revised ones changed.

        Every row is checked against the run it names before anything is stored; a bad row
        stops the import naming file, row, document and span. Importing the same revisions
        again returns the run already stored.
        """
        from workbench.exchange.review_import import import_review
        store = open_existing_store(store_path)
        if from_doccano:
            from workbench.doccano.review import pull_review
            record = pull_review(store, _client(url, username, password, allow_remote), source, reviewer)
        else:
            record = import_review(store, source, reviewer)
        click.echo(f"run {record.run_id}: {record.config['changed']} of {record.n_slots} spans revised by "
                   f"{record.config['reviewer']} (parent run {record.config['parent']})")
