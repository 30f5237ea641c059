"""`workbench mlm`: the small offline masked LMs used by tests here (not by real runs)."""

from __future__ import annotations

import json

import click

from workbench.mlm.recipes import RECIPES  # the languages with an offline recipe (a light module)


def register(main: click.Group) -> None:
    @main.group("mlm")
    def mlm() -> None:
        """Offline test masked LMs (users run the paper's RoBERTa models instead).

        \b
        Example:
          workbench mlm build-offline --lang en --lang sv
          workbench mlm info
          workbench generate -c pgv-pii-en -g fill-mask --model offline --upos-filter
        """

    @mlm.command("build-offline")
    @click.option("--lang", "langs", multiple=True, type=click.Choice(list(RECIPES)), default=tuple(RECIPES),
                  show_default=True, help="Which languages' models to build (repeatable).")
    def build_offline(langs) -> None:
        """Train the offline test MLMs once (minutes each) and cache them; a built one is reused.

        \b
        Example:
          workbench mlm build-offline --lang en
        """
        from workbench.mlm.offline import build_info
        from workbench.mlm.offline_build import build_offline_model
        for lang in langs:
            path = build_offline_model(lang)
            info = build_info(lang) or {}
            click.echo(f"{lang}: {path} (steps {info.get('steps_run')}, PUD {json.dumps(info.get('pud'))})")

    @mlm.command("build-causal-lm")
    def build_causal_lm() -> None:
        """Train the causal-LM stand-in of the perplexity metrics once (minutes) and cache it.

        No pretrained causal LM (distilgpt2) can be installed here, so the perplexity metrics
        fine-tune a 2-layer GPT-2 trained from UD treebank text; a built one is reused.

        \b
        Example:
          workbench mlm build-causal-lm
          workbench report --all --out out/all --causal-lm offline
        """
        from workbench.causal_lm.standin import build_info
        from workbench.causal_lm.standin_build import build_standin
        path = build_standin()
        info = build_info() or {}
        click.echo(f"causal-LM stand-in: {path} (steps {info.get('steps_run')}, {info.get('train_seconds')} s, "
                   f"PUD perplexity {json.dumps(info.get('pud_perplexity'))})")

    @mlm.command("info")
    def info() -> None:
        """Where the offline models are, whether they are built, and their PUD accuracy.

        \b
        Example:
          workbench mlm info
        """
        from workbench.mlm.offline import build_command, build_info, model_dir
        for lang in RECIPES:
            built = build_info(lang)
            if built is None:
                click.echo(f"{lang}: not built ({model_dir(lang)}); `{build_command(lang)}`")
            else:
                click.echo(f"{lang}: {model_dir(lang)}\n  recipe {built['recipe']['kind']}, steps {built['steps_run']}/"
                           f"{built['recipe']['steps']}, {built['seconds_total']} s, PUD {json.dumps(built['pud'])}")
