"""MTC and SS-MTC have no Swedish default checkpoint: docs/mtc.md says so and what to do, the
commands it gives parse, and a Swedish corpus on the default checkpoint gets that advice."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest

from workbench.generator_contract import create_generator
from workbench.infra.errors import WorkbenchError

DOC = Path(__file__).resolve().parents[2] / "docs" / "mtc.md"  # in the README until issue 36
HEADING = "**No Swedish default for `mtc` and `ss-mtc`.**"


def swedish_paragraph() -> str:
    text = DOC.read_text(encoding="utf-8")
    assert HEADING in text
    start = text.index(HEADING)
    return text[start:text.index("\n## ", start)]


def test_the_defaults_are_english_only_as_the_docs_say():
    from workbench.adapters.mtc.settings import DEFAULT_CORPUS
    assert "sv" not in DEFAULT_CORPUS  # no Swedish phrase source for SS-MTC's default
    for kind in ("mtc", "ss-mtc"):
        assert create_generator(kind, {})._path().name == f"{kind}-en"  # what -g KIND loads without a checkpoint


def test_the_documented_commands_for_swedish_parse_with_the_real_cli():
    from workbench.cli import main
    block = re.search(r"```bash\n(.*?)```", swedish_paragraph(), re.S).group(1)
    commands = [shlex.split(line, comments=True) for line in block.strip().splitlines()]
    assert {c[1] for c in commands} == {"mtc", "generate"}
    assert any("--lang" in c and c[c.index("--lang") + 1] == "sv" for c in commands)
    for words in commands:
        assert words[0] == "workbench"
        ctx, command, args = None, main, words[1:]
        while isinstance(command, click.Group):  # resolve `mtc train` as the shell would
            ctx = command.make_context(words[0], args, parent=ctx, resilient_parsing=True)
            _, command, args = command.resolve_command(ctx, args)
        command.make_context(words[-1], args, parent=ctx)  # a UsageError for an option the CLI lacks


def test_a_swedish_corpus_on_the_default_checkpoint_is_told_how_to_train_one(tiny_checkpoint, monkeypatch):
    import workbench.adapters.mtc.checkpoint as checkpoint
    monkeypatch.setattr(checkpoint, "default_checkpoint", lambda kind, lang="en": tiny_checkpoint)  # an 'en' one
    with pytest.raises(WorkbenchError) as raised:
        create_generator("ss-mtc", {}).load_for(["sv"])
    message = str(raised.value)
    assert "no default 'sv' checkpoint" in message
    assert "workbench mtc train --kind ss-mtc --lang sv" in message and "-o checkpoint=" in message


def test_a_checkpoint_the_user_gave_gets_no_training_advice(tiny_checkpoint):
    with pytest.raises(WorkbenchError, match="is for 'en' text") as raised:
        create_generator("ss-mtc", {"checkpoint": str(tiny_checkpoint)}).load_for(["sv"])
    assert "no default" not in str(raised.value)
