"""Option groups shared by several commands (sqlite-utils style decorators)."""

from __future__ import annotations

import contextlib
import os
import sys

import click

from workbench.data_model import LANGUAGES
from workbench.infra.paths import default_store
from workbench.loaders.shipped import FORMATS as CORPUS_FORMATS


def store_option(func):
    return click.option("--store", "store_path", type=click.Path(dir_okay=False), default=None,
                        help="SQLite run store (default: $WORKBENCH_STORE or ./runs.sqlite).")(func)


def open_store(store_path: str | None):
    from workbench.store import RunStore
    return RunStore(store_path or default_store())


def open_existing_store(store_path: str | None):
    """For commands that only read (runs, show, export, report): a missing store is an error,
    never created; a store the user cannot write (or `file:PATH?mode=ro`) opens read-only."""
    from workbench.store import RunStore
    return RunStore(store_path or default_store(), create=False)


def corpus_options(func):
    func = click.option("--skip-docs", default=None, metavar="IDS|@FILE",
                        help="Leave out these documents (comma-separated ids, or @file with one id a line).")(func)
    func = click.option("--docs", default=None, metavar="IDS|@FILE",
                        help="Keep only these documents (comma-separated ids, or @file with one id a line).")(func)
    func = corpus_reading_options(func)
    return click.option("-c", "--corpus", required=True,
                        help="A shipped corpus name (see `workbench corpora`) or a corpus file.")(func)


def corpus_reading_options(func):
    """How to read a corpus file (also `workbench validate`'s options)."""
    func = click.option("--annotator", default=None,
                        help="TAB release: which annotator's layer (default: the first).")(func)
    func = click.option("--quality-checked", is_flag=True, help="TAB release: only quality-checked documents.")(func)
    func = click.option("--spans", default=None, type=click.Path(exists=True, dir_okay=False),
                        help="tab-pair: the span file beside the texts file.")(func)
    func = click.option("--lang", default=None, type=click.Choice(LANGUAGES),
                        help="Language of every document (doccano: overrides the metadata).")(func)
    func = click.option("--format", "corpus_format", default=None, type=click.Choice(CORPUS_FORMATS),
                        help="Format of a corpus file (default: from its extension).")(func)
    return func


def load_corpus_from_options(corpus, corpus_format, lang, spans, quality_checked, annotator, docs=None,
                             skip_docs=None):
    from workbench.loaders import load_corpus
    from workbench.loaders.subset import select_documents
    loaded = load_corpus(corpus, format=corpus_format, lang=lang, spans=spans, annotator=annotator,
                         quality_checked_only=quality_checked)
    return select_documents(loaded, keep=docs, skip=skip_docs)


def name_value_pairs(items: tuple[str, ...], option: str, left: str = "NAME", right: str = "VALUE") -> dict[str, str]:
    """`-o name=value`-style option values as a dict; a WorkbenchError for an item without `=`."""
    from workbench.infra.errors import WorkbenchError
    pairs = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise WorkbenchError(f"{option} takes {left}={right}, not {item!r}")
        pairs[name.strip()] = value
    return pairs


def placement_options(func):
    """--device and --dtype for the torch models a command runs (workbench.infra.devices)."""
    from workbench.infra.devices import DEFAULT_DEVICE, DEFAULT_DTYPE, DTYPE_CHOICES

    def device(ctx, param, value):
        from workbench.infra.devices import check_device
        from workbench.infra.errors import WorkbenchError
        try:
            return check_device(value)
        except WorkbenchError as exc:
            raise click.BadParameter(str(exc)) from None

    func = click.option("--dtype", type=click.Choice(DTYPE_CHOICES), default=DEFAULT_DTYPE, show_default=True,
                        help="Number format of the torch models: auto = bfloat16 where this CPU (AMX or AVX-512 "
                             "BF16) was measured faster in it than in float32 and on GPUs that support it, float16 "
                             "on other GPUs, else float32 (docs/speed.md).")(func)
    return click.option("--device", default=DEFAULT_DEVICE, show_default=True, callback=device,
                        help="Torch device: auto (CUDA, then Apple MPS, then CPU), cpu, cuda, cuda:N or mps.")(func)


def cluster_options(func):
    """--executor / --address / --shards / --allow-remote (workbench.executors); the command makes
    them one ExecutorOptions with cluster_from_options."""
    from workbench.executors.options import DEFAULT_EXECUTOR
    from workbench.executors.registry import EXECUTORS
    for decorator in reversed([
        click.option("--executor", type=click.Choice(EXECUTORS.names()), default=DEFAULT_EXECUTOR, show_default=True,
                     help="local: this process; ray: tasks on a Ray cluster (docs/cluster.md)."),
        click.option("--address", default=None, metavar="auto|ray://HOST:PORT",
                     help="With --executor ray: the cluster to join (default: start one on this machine, "
                          "loopback only, for this job)."),
        click.option("--shards", type=click.IntRange(1), default=1, show_default=True,
                     help="With --executor ray: cut each run's documents into this many tasks."),
        click.option("--allow-remote", is_flag=True,
                     help="With --executor ray: allow a cluster with other machines (the tasks carry the texts)."),
    ]):
        func = decorator(func)
    return func


def cluster_from_options(executor: str, address: str | None, shards: int, allow_remote: bool):
    """The ExecutorOptions of the four options; a mistake (--shards without ray) is a usage error."""
    from workbench.executors.options import ExecutorOptions
    from workbench.infra.errors import InvalidValue
    try:  # what an executor cannot honour (--shards, --allow-remote without ray) it refuses itself
        return ExecutorOptions(executor, address, shards, allow_remote=allow_remote)
    except InvalidValue as exc:
        raise click.UsageError(str(exc)) from None


@contextlib.contextmanager
def stdout_to_stderr(enabled: bool):
    """While enabled, whatever is written to stdout goes to stderr, at the file-descriptor level so
    that a native library's or a child process's output moves too: stdout then carries only what
    the command prints after (`--print-id`: the run id alone, for `$(...)`)."""
    if not enabled:
        yield
        return
    sys.stdout.flush()
    try:
        out_fd, err_fd = sys.stdout.fileno(), sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):  # no real descriptors (click's CliRunner): Python-level only
        with contextlib.redirect_stdout(sys.stderr):
            yield
        return
    saved = os.dup(out_fd)
    os.dup2(err_fd, out_fd)
    try:
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, out_fd)
        os.close(saved)
