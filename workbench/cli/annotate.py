"""`workbench annotations …` and `workbench doccano …`: error annotation outside the dashboard."""

from __future__ import annotations

import math
import time

import click

from workbench.cli._options import open_store, store_option


def _annotation_store(store_path):
    from workbench.annotation.storage import AnnotationStore
    return AnnotationStore(open_store(store_path))


def _full_ids(store, runs) -> list[str] | None:
    return [store.runs.run(r).run_id for r in runs] if runs else None


def _doccano_options(func):
    func = click.option("--allow-remote", is_flag=True,
                        help="Allow a server off this machine (the texts hold personal data).")(func)
    func = click.option("--password", envvar="DOCCANO_PASSWORD", required=True,
                        help="doccano password (or $DOCCANO_PASSWORD).")(func)
    func = click.option("--username", envvar="DOCCANO_USERNAME", default="admin", show_default=True)(func)
    func = click.option("--url", envvar="DOCCANO_URL", default="http://127.0.0.1:8000", show_default=True)(func)
    return func


def _client(url, username, password, allow_remote):
    from workbench.doccano.client import DoccanoClient
    return DoccanoClient(url, username, password, allow_remote=allow_remote)


def _report_pull(parsed) -> None:
    for name, p in parsed.items():
        click.echo(f"{name}: {len(p.annotations)} tags imported, {p.untagged} still untagged"
                   + (f", {p.resolved} with several tags reduced by precedence" if p.resolved else ""))


def register(main: click.Group) -> None:
    @main.group("annotations")
    def annotations() -> None:
        """Error annotation of pseudonyms (paper 003 tagset): samples, export, import, agreement.

        \b
        Example:
          workbench annotations sample session-1 -r 832a7ed4 -r 2d97c2f2 --per-run 60
          workbench annotations agreement
          workbench annotations table6 -o out/annotation
        """

    @annotations.command("sample")
    @click.argument("name")
    @click.option("-r", "--run", "runs", multiple=True, required=True, help="Run id (or prefix); repeat.")
    @click.option("--per-run", type=click.IntRange(1), default=60, show_default=True, help="Pseudonyms per run.")
    @click.option("--unit", type=click.Choice(["document", "span"]), default="document", show_default=True)
    @click.option("--seed", type=int, default=0, show_default=True)
    @store_option
    def sample(name, runs, per_run, unit, seed, store_path) -> None:
        """Draw the named sample of pseudonyms an annotation session covers.

        \b
        Example:
          workbench annotations sample session-1 -r 832a7ed4 -r 2d97c2f2 --per-run 60
        """
        from workbench.annotation.sampling import SampleRecipe, draw_sample
        store = _annotation_store(store_path)
        recipe = SampleRecipe(tuple(_full_ids(store, runs)), per_run, unit, seed)
        items = draw_sample(store.runs, recipe)
        store.create_sample(name, items, recipe.to_dict())
        click.echo(f"sample {name}: {len(items)} pseudonyms from {len(runs)} run(s)")

    @annotations.command("status")
    @store_option
    def status(store_path) -> None:
        """Samples and each annotator's progress.

        \b
        Example:
          workbench annotations status
        """
        store = _annotation_store(store_path)
        for name, recipe, size in store.samples():
            click.echo(f"{name}: {size} pseudonyms, {recipe['unit']} sampling, runs {', '.join(recipe['runs'])}")
            for annotator in store.annotators():
                done = len(store.done_positions(name, annotator))
                if done:
                    click.echo(f"    {annotator:<20} {done:>5}/{size}")
        click.echo(f"{len(store.annotations())} annotations by {len(store.annotators())} annotator(s)")

    @annotations.command("export")
    @click.option("-o", "--output", type=click.Path(dir_okay=False), required=True)
    @click.option("-r", "--run", "runs", multiple=True, help="Only these runs (id or prefix); repeat.")
    @click.option("-a", "--annotator", "annotators", multiple=True, help="Only these annotators; repeat.")
    @store_option
    def export(output, runs, annotators, store_path) -> None:
        """Write annotations as JSONL (one tag per line).

        \b
        Example:
          workbench annotations export -o out/annotations.jsonl
        """
        from workbench.annotation.jsonl import export_annotations
        store = _annotation_store(store_path)
        n = export_annotations(store, output, _full_ids(store, runs), list(annotators) or None)
        click.echo(f"wrote {n} annotations to {output}")

    @annotations.command("import")
    @click.argument("path", type=click.Path(exists=True, dir_okay=False))
    @click.option("-a", "--annotator", default=None, help="Store every tag under this name instead of the file's.")
    @store_option
    def import_(path, annotator, store_path) -> None:
        """Read annotations from JSONL; all or nothing, checked against the store.

        \b
        Example:
          workbench annotations import out/annotations.jsonl
        """
        from workbench.annotation.jsonl import import_annotations
        n = import_annotations(_annotation_store(store_path), path, annotator)
        click.echo(f"imported {n} annotations from {path}")

    @annotations.command("agreement")
    @click.option("-r", "--run", "runs", multiple=True, help="Only these runs; repeat.")
    @click.option("-a", "--annotator", "annotators", multiple=True, help="Only these annotators; repeat.")
    @store_option
    def agreement_(runs, annotators, store_path) -> None:
        """Cohen's kappa per annotator pair and Fleiss' kappa.

        \b
        Example:
          workbench annotations agreement -a anna -a bo
        """
        from workbench.annotation import agreement, results
        store = _annotation_store(store_path)
        frame = results.annotation_frame(store, _full_ids(store, runs), list(annotators) or None)
        wide = agreement.wide_tags(frame, list(annotators) or None)
        for p in agreement.pairwise(wide):
            click.echo(f"{p.a} × {p.b}: {p.n_items} pseudonyms, observed {p.observed:.3f}, Cohen's kappa "
                       + ("undefined" if math.isnan(p.kappa) else f"{p.kappa:.3f}"))
        kappa, n = agreement.fleiss_of(wide)
        click.echo(f"Fleiss' kappa over {n} pseudonyms tagged by all {wide.shape[1]}: "
                   + ("undefined" if math.isnan(kappa) else f"{kappa:.3f}"))

    @annotations.command("table6")
    @click.option("-o", "--output", "outdir", type=click.Path(file_okay=False), required=True)
    @click.option("-r", "--run", "runs", multiple=True, help="Only these runs; repeat.")
    @click.option("--annotator", default=None, help="Use this annotator's tags (default: the majority).")
    @store_option
    def table6(outdir, runs, annotator, store_path) -> None:
        """Write 003 Table 6 (CSV, Markdown, LaTeX) and Figure 2 (PNG) of the annotations.

        \b
        Example:
          workbench annotations table6 -o out/annotation
        """
        from pathlib import Path

        from workbench.annotation import results
        store = _annotation_store(store_path)
        frame = results.annotation_frame(store, _full_ids(store, runs))
        items = results.item_tags(frame, store.tagset, annotator)
        table, counts = results.table6(items, store.tagset), results.table6_counts(items, store.tagset)
        basis = f"annotator {annotator}" if annotator else f"majority of {frame['annotator'].nunique()} annotator(s)"
        caption = (f"Relative frequencies of error tags per generation method and language ({basis}; "
                   f"{len(items)} pseudonyms; runs {', '.join(sorted(items['run_id'].unique()))}).")
        paths = results.write_table6(table, counts, outdir, caption)
        results.figure2(table, store.tagset, Path(outdir) / "figure2.png")
        click.echo(table.to_string(float_format=lambda v: f"{v:.4f}"))
        click.echo("wrote " + ", ".join(str(p) for p in paths + [Path(outdir) / "figure2.png"]))

    # -- doccano ---------------------------------------------------------------------
    @main.group("doccano")
    def doccano() -> None:
        """Annotate through a doccano server (plain REST; see docs/dashboard.md).

        \b
        Example:
          workbench doccano export 2d97c2f2 -o out/doccano.jsonl
          DOCCANO_PASSWORD=… workbench doccano sync 2d97c2f2 --url http://127.0.0.1:8000
        """

    @doccano.command("export")
    @click.argument("run_id")
    @click.option("-o", "--output", type=click.Path(dir_okay=False), required=True)
    @click.option("-a", "--annotator", default=None, help="Pre-label spans with this annotator's tags.")
    @store_option
    def d_export(run_id, output, annotator, store_path) -> None:
        """Write a run as a doccano sequence-labelling JSONL (labels = the error tagset).

        \b
        Example:
          workbench doccano export 2d97c2f2 -o out/doccano.jsonl
        """
        from workbench.doccano.format import export_project
        n = export_project(_annotation_store(store_path), run_id, output, annotator)
        click.echo(f"wrote {n} documents to {output}")

    @doccano.command("import")
    @click.argument("path", type=click.Path(exists=True, dir_okay=False))
    @click.option("-a", "--annotator", default=None, help="Annotator name (default: the file's stem, doccano's user).")
    @store_option
    def d_import(path, annotator, store_path) -> None:
        """Read a doccano JSONL export (of a project made by `doccano export`) as error tags.

        \b
        Example:
          workbench doccano import admin.jsonl --annotator anna
        """
        from pathlib import Path

        from workbench.doccano.format import import_export
        parsed = import_export(_annotation_store(store_path), path, annotator)
        _report_pull({annotator or Path(path).stem: parsed})

    @doccano.command("push")
    @click.argument("run_id")
    @click.option("--project", default=None, help="Project name (default: 'workbench run <id>').")
    @click.option("-a", "--annotator", default=None, help="Pre-label spans with this annotator's tags.")
    @_doccano_options
    @store_option
    def push(run_id, project, annotator, url, username, password, allow_remote, store_path) -> None:
        """Create the project and its labels on a doccano server and upload the run.

        \b
        Example:
          DOCCANO_PASSWORD=… workbench doccano push 2d97c2f2 --url http://127.0.0.1:8000
        """
        from workbench.doccano.sync import push as do_push
        result = do_push(_annotation_store(store_path), _client(url, username, password, allow_remote), run_id,
                         annotator=annotator, name=project)
        click.echo(f"project {result.project.name!r} (id {result.project.id}): {result.documents} documents, "
                   f"{result.spans} spans, {result.tagged} pre-tagged")

    @doccano.command("pull")
    @click.argument("project")
    @click.option("--as", "mapping", multiple=True, metavar="USER=NAME", help="Import doccano USER's tags as NAME.")
    @_doccano_options
    @store_option
    def pull(project, mapping, url, username, password, allow_remote, store_path) -> None:
        """Download a project's annotations (one file per doccano user) into the store.

        \b
        Example:
          DOCCANO_PASSWORD=… workbench doccano pull 'workbench run 2d97c2f2f35e2341' --as admin=anna
        """
        from workbench.doccano.sync import pull as do_pull
        names = dict(m.split("=", 1) for m in mapping)
        _report_pull(do_pull(_annotation_store(store_path), _client(url, username, password, allow_remote), project,
                             annotators=names))

    @doccano.command("sync")
    @click.argument("run_id")
    @click.option("--project", default=None, help="Project name (default: 'workbench run <id>').")
    @click.option("-a", "--annotator", default=None, help="On first push, pre-label with this annotator's tags.")
    @click.option("--as", "mapping", multiple=True, metavar="USER=NAME", help="Import doccano USER's tags as NAME.")
    @_doccano_options
    @store_option
    def sync(run_id, project, annotator, mapping, url, username, password, allow_remote, store_path) -> None:
        """Push the run if its project does not exist yet, then pull the project's annotations.

        \b
        Example:
          DOCCANO_PASSWORD=… workbench doccano sync 2d97c2f2 --as admin=anna
        """
        from workbench.doccano import sync as s
        store = _annotation_store(store_path)
        client = _client(url, username, password, allow_remote)
        name = project or s.project_name(store.runs.run(run_id).run_id)
        if not any(p.name == name for p in client.projects()):
            r = s.push(store, client, run_id, annotator=annotator, name=name)
            click.echo(f"created project {name!r} (id {r.project.id}) with {r.documents} documents")
        _report_pull(s.pull(store, client, name, annotators=dict(m.split("=", 1) for m in mapping)))

    @doccano.command("serve")
    @click.option("--home", type=click.Path(file_okay=False), default=".doccano", show_default=True,
                  help="doccano's data folder (database, media).")
    @click.option("--port", type=click.IntRange(1024, 65535), default=8000, show_default=True)
    @click.option("--username", default="admin", show_default=True)
    @click.option("--password", envvar="DOCCANO_PASSWORD", required=True, help="(or $DOCCANO_PASSWORD)")
    def serve(home, port, username, password) -> None:
        """Run a local doccano (from .venv-doccano) on 127.0.0.1 until Ctrl-C.

        \b
        Example:
          DOCCANO_PASSWORD=secret workbench doccano serve --port 8000
        """
        from workbench.doccano.server import LocalDoccano
        with LocalDoccano(home, port=port, username=username, password=password) as server:
            click.echo(f"doccano on {server.url} (user {username}); Ctrl-C stops it")
            try:
                while True:
                    time.sleep(1)
            except KeyboardInterrupt:
                pass
