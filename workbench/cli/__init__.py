"""The `workbench` command: a thin shell over the library.

Each module in this package that defines `register(group)` adds its commands; COMMAND_MODULES
below says which module adds each top-level command, so that running one imports only its own
module (a new command adds its module and a line there; tests/cli/test_cli_core.py checks the table).
Modules import heavy libraries inside their command functions only, so that a command starts fast.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys
import warnings

import click

from workbench.infra.errors import WorkbenchError


class _Group(click.Group):
    group_class = type  # `@group.group(...)` makes another _Group: the same listing and errors below

    def format_commands(self, ctx, formatter) -> None:
        """Each command with its whole description (the first sentence of its help), wrapped
        rather than cut at the terminal's width as click does ("Error annotation of pseudonyms...")."""
        rows = [(name, command.get_short_help_str(limit=sys.maxsize))
                for name in self.list_commands(ctx)
                if (command := self.get_command(ctx, name)) is not None and not command.hidden]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except WorkbenchError as exc:  # a user's mistake: the message, not a traceback
            click.echo(f"error: {exc}", err=True)
            sys.exit(2)
        except KeyboardInterrupt:  # Ctrl-C: writes are transactions, so what was stored is whole
            click.echo("\ninterrupted; what was stored is kept (a generation resumes with the same command)",
                       err=True)
            sys.exit(130)
        except BrokenPipeError:  # the reader stopped reading (`| head`): no error, as for any Unix tool
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # so the exit's flush is quiet
            sys.exit(141)  # what a shell reports for a process ended by SIGPIPE
        except OSError as exc:  # a path that cannot be read or written (missing folder, permissions, full disk)
            where = f" {exc.filename}" if exc.filename else ""
            click.echo(f"error: cannot use{where}: {exc.strerror or exc}", err=True)
            sys.exit(2)


class _Main(_Group):
    """The root command: a subcommand's module is imported when that subcommand is asked for."""

    def get_command(self, ctx, cmd_name):
        if cmd_name in COMMAND_MODULES:
            register_modules(COMMAND_MODULES[cmd_name])
        else:  # an unknown name: every module, so that click's "no such command" can suggest one
            register_all()
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx):
        register_all()
        return super().list_commands(ctx)


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="pseudonym-workbench")
def main() -> None:
    """Generate and evaluate pseudonyms for personal-information spans (English and Swedish).

    \b
    Example:
      workbench generate -c pgv-pii-en -g upos --mode maskL
      workbench runs
    """
    warnings.showwarning = _show_warning


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """A corpus warning as a line for the user; any other warning as Python shows it."""
    from workbench.loaders.problems import CorpusWarning
    if issubclass(category, CorpusWarning):
        from workbench.infra.terminal import printable
        click.echo(f"warning: {printable(str(message))}", err=True)
    else:
        sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


# Which modules add each top-level command: `workbench runs` imports cli/runs.py and what it needs,
# not every command's module (each of which reads its option choices from the library when
# registered). Importing them all cost about a second of CPU per invocation, pandas and numpy
# included; the test suite runs the console script a few hundred times. `workbench --help` and
# anything that lists the commands still load them all; tests/cli/test_cli_core.py checks this table
# against what the modules register.
COMMAND_MODULES: dict[str, tuple[str, ...]] = {
    "annotations": ("annotate",), "benchmark": ("benchmark",), "compare": ("compare",),
    "corpora": ("corpora",), "generators": ("corpora",), "dashboard": ("dashboard",), "doccano": ("doccano",),
    "generate": ("generate",), "import-run": ("import_run",), "metrics": ("metric_models",), "mlm": ("mlm",),
    "mtc": ("mtc",), "privacy": ("privacy_infer", "privacy_known_pair", "privacy_reid"),
    "reference": ("reference",), "run-report": ("reference",), "report": ("report",), "review": ("review",),
    "runs": ("runs",), "show": ("runs",), "export": ("runs",), "store": ("store_merge",), "validate": ("validate",),
}
_registered: set[str] = set()


def register_modules(names) -> None:
    """Import these command modules (by name in this package) and add their commands, each once."""
    for name in names:
        if name not in _registered:
            _registered.add(name)
            module = importlib.import_module(f"{__name__}.{name}")
            if hasattr(module, "register"):
                module.register(main)


def register_all() -> None:
    register_modules(sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_")))
