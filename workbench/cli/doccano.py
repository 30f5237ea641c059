"""`workbench doccano …`: annotate through a doccano server (workbench.doccano does the work)."""

from __future__ import annotations

import click

from workbench.cli._options import store_option
from workbench.cli.annotate import annotation_store
from workbench.doccano.server import DEFAULT_PORT, DEFAULT_URL


def _server_options(func):
    func = click.option("--allow-remote", is_flag=True,
                        help="Allow a server off this machine (the texts hold personal data).")(func)
    func = click.option("--password", envvar="DOCCANO_PASSWORD", required=True,
                        help="doccano password (or $DOCCANO_PASSWORD).")(func)
    func = click.option("--username", envvar="DOCCANO_USERNAME", default="admin", show_default=True,
                        help="doccano user (or $DOCCANO_USERNAME).")(func)
    func = click.option("--url", envvar="DOCCANO_URL", default=DEFAULT_URL, show_default=True,
                        help="The doccano server (or $DOCCANO_URL); on this machine unless --allow-remote.")(func)
    return func


def _client(url, username, password, allow_remote):
    from workbench.doccano.client import DoccanoClient
    return DoccanoClient(url, username, password, allow_remote=allow_remote)


def _echo_pull(parsed) -> None:
    from workbench.doccano.sync import describe_pull
    for line in describe_pull(parsed):
        click.echo(line)


def register(main: click.Group) -> None:
    @main.group("doccano")
    def doccano() -> None:
        """Annotate through a doccano server (plain REST; see docs/dashboard.md).

        \b
        Example:
          workbench doccano export-task 2d97c2f2 -o out/doccano-task.jsonl
          DOCCANO_PASSWORD=… workbench doccano sync 2d97c2f2 --url http://127.0.0.1:8000
        """

    def task_options(func):
        for decorator in reversed([
            click.argument("run_id"),
            click.option("-o", "--output", type=click.Path(dir_okay=False), required=True,
                         help="The JSONL file to write."),
            click.option("-a", "--annotator", default=None, help="Pre-label spans with this annotator's tags."),
            store_option,
        ]):
            func = decorator(func)
        return func

    @doccano.command("export-task")
    @task_options
    def export_task(run_id, output, annotator, store_path) -> None:
        """Write a run as a file for a doccano error-annotation project (labels = the error tagset).

        Each replacement is a span labelled UNTAGGED (or the annotator's tag) for annotators to
        tag in doccano; upload the file to a project by hand (`push` does it over REST) and read
        the tags back with `workbench doccano import`. Not the pseudonymised corpus itself: that
        is `workbench export RUN --format doccano` (spans labelled PERSON, LOC …).

        \b
        Example:
          workbench doccano export-task 2d97c2f2 -o out/doccano-task.jsonl
        """
        from workbench.doccano.format import export_project
        n = export_project(annotation_store(store_path), run_id, output, annotator)
        click.echo(f"wrote {n} documents to {output}")

    @doccano.command("export", hidden=True)
    @task_options
    @click.pass_context
    def export(ctx, run_id, output, annotator, store_path) -> None:
        """The old name of `workbench doccano export-task` (kept working).

        \b
        Example:
          workbench doccano export 2d97c2f2 -o out/doccano-task.jsonl
        """
        click.echo("note: `workbench doccano export` is now `workbench doccano export-task` (an error-annotation "
                   "task); the pseudonymised corpus as doccano JSONL is `workbench export RUN --format doccano`",
                   err=True)
        ctx.invoke(export_task, run_id=run_id, output=output, annotator=annotator, store_path=store_path)

    @doccano.command("import")
    @click.argument("path", type=click.Path(exists=True, dir_okay=False))
    @click.option("-a", "--annotator", default=None, help="Annotator name (default: the file's stem, doccano's user).")
    @store_option
    def import_(path, annotator, store_path) -> None:
        """Read a doccano JSONL export (of a project made from `doccano export-task` or `push`) as error tags.

        \b
        Example:
          workbench doccano import admin.jsonl --annotator anna
        """
        from pathlib import Path

        from workbench.doccano.format import import_export
        parsed = import_export(annotation_store(store_path), path, annotator)
        _echo_pull({annotator or Path(path).stem: parsed})

    @doccano.command("push")
    @click.argument("run_id")
    @click.option("--project", default=None, help="Project name (default: 'workbench run <id>').")
    @click.option("-a", "--annotator", default=None, help="Pre-label spans with this annotator's tags.")
    @_server_options
    @store_option
    def push(run_id, project, annotator, url, username, password, allow_remote, store_path) -> None:
        """Create the project and its labels on a doccano server and upload the run.

        \b
        Example:
          DOCCANO_PASSWORD=… workbench doccano push 2d97c2f2 --url http://127.0.0.1:8000
        """
        from workbench.doccano import sync
        result = sync.push(annotation_store(store_path), _client(url, username, password, allow_remote), run_id,
                           annotator=annotator, name=project)
        click.echo(f"project {result.project.name!r} (id {result.project.id}): {result.documents} documents, "
                   f"{result.spans} spans, {result.tagged} pre-tagged")

    @doccano.command("pull")
    @click.argument("project")
    @click.option("--as", "mapping", multiple=True, metavar="USER=NAME", help="Import doccano USER's tags as NAME.")
    @_server_options
    @store_option
    def pull(project, mapping, url, username, password, allow_remote, store_path) -> None:
        """Download a project's annotations (one file per doccano user) into the store.

        \b
        Example:
          DOCCANO_PASSWORD=… workbench doccano pull 'workbench run 2d97c2f2f35e2341' --as admin=anna
        """
        from workbench.doccano import sync
        names = sync.user_mapping(mapping)  # before anything is asked of the server
        _echo_pull(sync.pull(annotation_store(store_path), _client(url, username, password, allow_remote), project,
                             annotators=names))

    @doccano.command("sync")
    @click.argument("run_id")
    @click.option("--project", default=None, help="Project name (default: 'workbench run <id>').")
    @click.option("-a", "--annotator", default=None, help="On first push, pre-label with this annotator's tags.")
    @click.option("--as", "mapping", multiple=True, metavar="USER=NAME", help="Import doccano USER's tags as NAME.")
    @_server_options
    @store_option
    def sync_(run_id, project, annotator, mapping, url, username, password, allow_remote, store_path) -> None:
        """Push the run if its project does not exist yet, then pull the project's annotations.

        \b
        Example:
          DOCCANO_PASSWORD=… workbench doccano sync 2d97c2f2 --as admin=anna
        """
        from workbench.doccano import sync
        names = sync.user_mapping(mapping)
        result = sync.sync(annotation_store(store_path), _client(url, username, password, allow_remote), run_id,
                           project=project, annotator=annotator, annotators=names)
        if result.created:
            click.echo(f"created project {result.project!r} (id {result.created.project.id}) "
                       f"with {result.created.documents} documents")
        _echo_pull(result.pulled)

    @doccano.command("serve")
    @click.option("--home", type=click.Path(file_okay=False), default=".doccano", show_default=True,
                  help="doccano's data folder (database, media).")
    @click.option("--port", type=click.IntRange(1024, 65535), default=DEFAULT_PORT, show_default=True,
                  help="Port on 127.0.0.1 doccano answers.")
    @click.option("--username", default="admin", show_default=True,
                  help="The user to log in with (created when missing).")
    @click.option("--password", envvar="DOCCANO_PASSWORD", required=True, help="(or $DOCCANO_PASSWORD)")
    def serve(home, port, username, password) -> None:
        """Run a local doccano (from .venv-doccano) on 127.0.0.1 until Ctrl-C.

        \b
        Example:
          DOCCANO_PASSWORD=secret workbench doccano serve --port 8000
        """
        from workbench.doccano.server import LocalDoccano
        server = LocalDoccano(home, port=port, username=username, password=password)
        server.serve_until_interrupted(lambda url: click.echo(f"doccano on {url} (user {username}); Ctrl-C stops it"))
