"""`workbench privacy infer`: the inference attack per span (004 §3.2) and its disclosure rate;
`workbench privacy build-lemmatiser`: the lemmatisers its matching function needs."""

from __future__ import annotations

import click

from workbench.cli._options import name_value_pairs, open_existing_store, store_option


def _privacy_group(main: click.Group) -> click.Group:
    """The `privacy` group, shared by the privacy commands' modules: made by whichever registers first."""
    made = main.commands.get("privacy")
    if isinstance(made, click.Group):
        return made

    @main.group("privacy")
    def group() -> None:
        """Privacy measures of stored runs: re-identification risk, inference attacks.

        \b
        Example:
          workbench privacy infer 832a7ed4 --attacker mlm --model offline
        """
    return group


def docs_option(what: str):
    """--docs IDS|@FILE as `generate --docs` takes it, parsed to a list of ids (None: every document)."""
    def parse(ctx, param, value):
        from workbench.loaders.subset import parse_ids
        return None if value is None else parse_ids(value)
    return click.option("--docs", default=None, metavar="IDS|@FILE", callback=parse,
                        help=f"{what} (comma-separated ids, or @file with one id a line).")


def register(main: click.Group) -> None:
    from workbench.privacy.inference_attacks.inference_attackers import DEFAULT_GUESSES, INFERENCE_ATTACKERS
    from workbench.privacy.inference_attacks.lemmatiser import LANGUAGES
    group = _privacy_group(main)

    @group.command("infer")
    @click.argument("run_ids", nargs=-1, required=True, metavar="RUN...")
    @click.option("--attacker", type=click.Choice(INFERENCE_ATTACKERS), default="mlm", show_default=True,
                  help="mlm: a masked LM guesses each span from the pseudonymised context (no server); "
                       "ollama: an instruction LLM through Ollama, with 004's guessing prompt.")
    @click.option("-n", "n", type=click.IntRange(1, 50), default=DEFAULT_GUESSES, show_default=True,
                  help="Guesses per span.")
    @click.option("--model", default=None,
                  help="The attacker's model: for mlm a hub id, a local directory or `offline` (the test MLM); "
                       "for ollama an Ollama model name.")
    @click.option("-o", "--option", "options", multiple=True, metavar="NAME=VALUE",
                  help="Attacker setting, e.g. -o context_chars=800 or -o host=http://127.0.0.1:11500; "
                       "see docs/privacy.md.")
    @click.option("--by-label", is_flag=True, help="Also print the rates per span label.")
    @docs_option("Attack only the spans of these documents")
    @store_option
    def infer(run_ids, attacker, n, model, options, by_label, docs, store_path) -> None:
        """Inference attack on runs: the share of replaced spans whose original an attacker discloses.

        The attacker reads each run's pseudonymised documents and guesses every replaced
        span's original N times; 004's matching function (lemmas, 4-grams for names, exact
        dates, acronyms) decides whether a guess discloses it. Results are stored per span
        and reused (an interrupted attack resumes). With --docs only those documents'
        spans are attacked and the rates are over them (the `docs` column says how many of
        the run's documents); a later call with more documents, or none, attacks only the
        spans not stored yet.

        \b
        Example:
          workbench privacy infer 832a7ed4 5be0c1aa --attacker mlm --model offline -n 5
          workbench privacy infer 832a7ed4 --docs 001-61807,001-58240 --by-label
          workbench privacy infer $(workbench runs --ids --corpus tab-test) --attacker mlm --model offline
          workbench privacy infer 832a7ed4 --attacker ollama -o host=http://127.0.0.1:11434
        """
        from workbench.privacy.inference_attacks.inference import (
            disclosure_lines,
            inference_disclosure,
            stored_disclosure,
        )
        config = name_value_pairs(options, "-o/--option")
        if model is not None:
            config["model"] = model
        store = open_existing_store(store_path)  # the runs to attack must be stored already
        frame = inference_disclosure(store, run_ids, attacker=attacker, n=n, config=config, progress=True, docs=docs,
                                     log=lambda message: click.echo(message, err=True))
        for line in disclosure_lines(frame):
            click.echo(line)
        if by_label:
            keys = set(frame["attack_key"])
            labelled = stored_disclosure(store, run_ids, by_label=True, docs=docs)
            click.echo()
            for line in disclosure_lines(labelled[labelled["attack_key"].isin(keys)]):
                click.echo(line)

    @group.command("disclosure")
    @click.argument("run_ids", nargs=-1, metavar="[RUN...]")
    @click.option("--by-label", is_flag=True, help="Rates per span label.")
    @docs_option("The rates over these documents only")
    @store_option
    def disclosure(run_ids, by_label, docs, store_path) -> None:
        """Stored inference-attack results of runs (all runs without RUN); attacks nothing.

        Without --docs a row covers the whole run, and `missing` counts its spans that
        have no result yet (an attack with --docs, or one interrupted).

        \b
        Example:
          workbench privacy disclosure 832a7ed4 --by-label
          workbench privacy disclosure 832a7ed4 --docs @my_docs.txt
        """
        from workbench.privacy.inference_attacks.inference import disclosure_lines, stored_disclosure
        store = open_existing_store(store_path)
        for line in disclosure_lines(stored_disclosure(store, run_ids or None, by_label=by_label, docs=docs)):
            click.echo(line)

    @group.command("build-lemmatiser")
    @click.option("--lang", "langs", multiple=True, type=click.Choice(LANGUAGES), default=LANGUAGES,
                  show_default=True, help="Which languages' lemmatisers to build (repeatable).")
    def build_lemmatiser(langs) -> None:
        """Train the inference attack's lemmatisers once (about a minute each) and cache them.

        \b
        Example:
          workbench privacy build-lemmatiser --lang sv
        """
        import json

        from workbench.privacy.inference_attacks.lemmatiser import build_info
        from workbench.privacy.inference_attacks.lemmatiser_build import build_lemmatiser as build
        for lang in langs:
            path = build(lang)
            accuracy = (build_info(lang) or {}).get("accuracy")
            click.echo(f"{lang}: {path} (held-out lemma accuracy {json.dumps(accuracy)})")
