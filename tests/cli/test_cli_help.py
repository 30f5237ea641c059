"""Help texts whole (issue 42): every command and every option says what it is, and a group's
listing shows each command's description untruncated (click cut them at the terminal's width)."""

from __future__ import annotations

import click
from click.testing import CliRunner

from workbench.cli import main, register_all

register_all()  # main.commands holds the commands loaded so far; these tests read every one


def _commands(group: click.Group = main, path: tuple[str, ...] = ()):
    for name, command in group.commands.items():
        yield (*path, name), command
        if isinstance(command, click.Group):
            yield from _commands(command, (*path, name))


def _words(text: str) -> str:
    return " ".join(text.split())


def test_every_command_and_every_option_has_help():
    missing = []
    for path, command in _commands():
        if not (command.help or "").strip():
            missing.append(" ".join(path))
        missing += [f"{' '.join(path)} {'/'.join(p.opts)}" for p in command.params
                    if isinstance(p, click.Option) and not (p.help or "").strip() and "--help" not in p.opts]
    assert missing == []


def test_each_listing_shows_every_description_whole():
    runner = CliRunner()
    groups = [((), main)] + [(path, c) for path, c in _commands() if isinstance(c, click.Group)]
    for path, group in groups:
        listing = _words(runner.invoke(main, [*path, "--help"], terminal_width=80).output.split("Commands:")[1])
        for name, command in group.commands.items():
            if command.hidden:  # an old name kept working, left out of the listing
                continue
            description = _words(command.get_short_help_str(limit=10**6))
            assert description and f"{name} {description}" in listing, (path, name)
