"""The `workbench mtc` and `workbench mlm` options take their defaults and choices from the
library's settings, not from literals repeated in the CLI (issue 11 item 4)."""

from __future__ import annotations

import ast
from pathlib import Path

import click
import pytest

import workbench.cli.mlm
import workbench.cli.mtc
from workbench.adapters.mtc.settings import (
    DEFAULT_MIN_COUNT,
    INITS,
    KINDS,
    BuildRecipe,
    TrainSettings,
    VocabularySettings,
)
from workbench.cli import main, register_all
from workbench.mlm.recipes import RECIPES

# Options that are the CLI's own (no library setting behind them).
CLI_ONLY = {"progress", "limit", "out", "as_json", "corpus_format", "spans", "docs", "skip_docs", "conllu",
            "max_phrases", "min_count"}


def _options(*path: str) -> dict[str, click.Option]:
    register_all()  # main.commands holds only the commands loaded so far
    command = main
    for name in path:
        command = command.commands[name]
    return {p.name: p for p in command.params if isinstance(p, click.Option)}


def _library_default(name: str):
    for settings in (TrainSettings(), VocabularySettings(), BuildRecipe(kind=KINDS[0])):
        if name in settings.__dataclass_fields__:
            return getattr(settings, name)
    raise KeyError(name)


@pytest.mark.parametrize("command", ["train", "phrases"])
def test_mtc_option_defaults_are_the_settings_defaults(command):
    options = _options("mtc", command)
    checked = 0
    for name, option in options.items():
        if name in CLI_ONLY or name in ("kind", "corpus"):
            continue
        assert option.default == _library_default(name), name
        checked += 1
    assert checked >= (10 if command == "train" else 5)
    assert tuple(options["kind"].type.choices) == KINDS
    if command == "train":
        assert tuple(options["init"].type.choices) == INITS
    assert all(f"{k} {v}" in options["min_count"].help for k, v in DEFAULT_MIN_COUNT.items())


def test_mlm_languages_are_the_recipes():
    assert tuple(_options("mlm", "build-offline")["langs"].type.choices) == tuple(RECIPES)


@pytest.mark.parametrize("module", [workbench.cli.mtc, workbench.cli.mlm])
def test_no_literal_defaults_in_the_cli(module):
    """A number, string or list written as an option's default or choices would be a second home."""
    allowed = {"progress": True, "limit": 30}  # the CLI's own options
    literals = []
    for node in ast.walk(ast.parse(Path(module.__file__).read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.Call) and getattr(node.func, "attr", "") in ("option", "Choice")):
            continue
        name = next((a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)
                     and a.value.startswith("--")), "")
        for value in [k.value for k in node.keywords if k.arg == "default"] + (
                list(node.args[:1]) if node.func.attr == "Choice" else []):
            if isinstance(value, (ast.List, ast.Tuple)) or (isinstance(value, ast.Constant) and value.value is not None
                                                             and value.value is not False):
                if allowed.get(name.lstrip("-").split("/")[0]) != getattr(value, "value", object()):
                    literals.append((name, ast.unparse(value)))
    assert literals == []
