"""The `workbench` command: a thin shell over the library.

Each module in this package that defines `register(group)` adds its commands, so a new
capability adds a module here without touching this file. Modules import heavy
libraries inside their command functions only, so `workbench --help` stays fast.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys
import warnings

import click

from workbench.errors import WorkbenchError


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


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
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
        from workbench.terminal import printable
        click.echo(f"warning: {printable(str(message))}", err=True)
    else:
        sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


for _info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if not _info.name.startswith("_"):
        _module = importlib.import_module(f"{__name__}.{_info.name}")
        if hasattr(_module, "register"):
            _module.register(main)
