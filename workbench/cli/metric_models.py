"""`workbench metrics`: models the metric families use that the set-up builds (not downloads)."""

from __future__ import annotations

import click

from workbench.metrics.backends.ner_standin import CORPORA  # the languages with a stand-in NER tagger (a light module)


def register(main: click.Group) -> None:
    @main.group("metrics")
    def metrics() -> None:
        """Models the metric families build once and cache (workbench report uses them).

        \b
        Example:
          workbench metrics build-ner-tagger --lang sv
          workbench report --all --out out/all --ner-model sv=path/to/spacy-ner
        """

    @metrics.command("build-ner-tagger")
    @click.option("--lang", "langs", multiple=True, type=click.Choice(list(CORPORA)), default=tuple(CORPORA),
                  show_default=True, help="Which languages' stand-in NER taggers to build (repeatable).")
    def build_ner_tagger(langs) -> None:
        """Train the stand-in NER tagger of NER-type consistency once (about a minute) and cache it.

        No Swedish NER model is installable here, so Swedish is tagged by a spaCy tagger trained
        on the Swedish PGV-PII corpus's own labels; a built one is reused.

        \b
        Example:
          workbench metrics build-ner-tagger --lang sv
        """
        from workbench.metrics.backends.ner_standin import build_info, build_standin
        for lang in langs:
            path = build_standin(lang)
            info = build_info(lang) or {}
            click.echo(f"{lang}: {path} ({info.get('epochs_run')} epochs, {info.get('seconds')} s; entity F1 on its "
                       f"own training documents {info.get('train_ents_f')})")
