"""`workbench privacy reid`: re-identification risk (TRIR, mean rank, rank <= k) of stored runs."""

from __future__ import annotations

import click

from workbench.cli._options import (
    cluster_from_options,
    cluster_options,
    name_value_pairs,
    open_existing_store,
    store_option,
)


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
          workbench privacy reid 832a7ed4 --attacker retrieval
        """
    return group


def register(main: click.Group) -> None:
    from workbench.privacy.reid_attacks.attackers import ATTACKERS, REGISTRY
    from workbench.privacy.reid_attacks.reid_contract import DEFAULT_K

    @_privacy_group(main).command("reid")
    @click.argument("run_ids", nargs=-1, required=True, metavar="RUN...")
    @click.option("--attacker", type=click.Choice(ATTACKERS), default="retrieval", show_default=True,
                  # every attacker of the registry, as it describes itself (so a new one is listed here)
                  help="; ".join(f"{name}: {text}" for name, text in REGISTRY.describe().items())
                       + ". The trained ones train once per background and settings, then are cached.")
    @click.option("-k", "k", type=click.IntRange(1), default=DEFAULT_K, show_default=True,
                  help="Report the share of documents whose individual the attacker ranks within k.")
    @click.option("--background", type=click.Path(dir_okay=False), default=None,
                  help="Background knowledge, JSON {individual (= doc_id): public text} (default: the corpus's "
                       "shipped one; tab-test has one).")
    @click.option("--background-share", type=click.FloatRange(0, 1, min_open=True), default=1.0, show_default=True,
                  help="A weaker attacker (TAE): it knows only the first SHARE of each background text, by "
                       "characters as TAE's Public10%/25%/50% files (0.1, 0.25, 0.5); stored as an attack of its "
                       "own, named e.g. 'retrieval 10 %'.")
    @click.option("-o", "--option", "options", multiple=True, metavar="NAME=VALUE",
                  help="Attacker setting, e.g. -o base_model=offline (trained) or -o k1=1.2 (retrieval); "
                       "see docs/privacy.md.")
    @click.option("--method-aware", "method_aware", is_flag=False, flag_value="own", default=None, metavar="[KIND]",
                  help="An attacker that knows the method: its index and training data are the background as the "
                       "run's own method rewrites it (a generated run's generator, seed + 1; a reference run's "
                       "kind), or as KIND does (suppress, label, label-numbered: for an imported run), over the "
                       "spans a NER model finds in it. Stored as '<attacker>+method'; printed beside the "
                       "method-blind attack with the difference.")
    @cluster_options
    @store_option
    def reid(run_ids, attacker, k, background, background_share, options, method_aware, executor, address, shards,
             allow_remote, store_path) -> None:
        """Re-identification risk of runs: TRIR (accuracy@1), mean rank of the true individual, share within rank k.

        Each document is attacked as the run pseudonymised it; results are stored per
        document and reused (an interrupted attack resumes).

        \b
        Example:
          workbench privacy reid 832a7ed4 5be0c1aa --attacker retrieval -k 10
          workbench privacy reid 832a7ed4 --attacker trained -o base_model=offline
          workbench privacy reid 832a7ed4 --background my_background.json
          workbench privacy reid 832a7ed4 --background-share 0.1
          workbench privacy reid 832a7ed4 --method-aware          # knows the run's method
          workbench privacy reid 5be0c1aa --method-aware label    # an imported run, label assumed
          workbench privacy reid 832a7ed4 5be0c1aa --executor ray   # scoring batches on Ray
        """
        import pandas as pd

        from workbench.privacy.reid_attacks.reid import reid_lines, reid_risk
        if shards != 1:  # an attack's tasks are its batches of documents (workbench.cluster.attacks)
            raise click.UsageError("--shards is for generation; an attack is sent to Ray a batch of documents a task")
        cluster = cluster_from_options(executor, address, shards, allow_remote)
        store = open_existing_store(store_path)  # the runs to attack must be stored already
        attack = dict(attacker=attacker, k=k, background=background, background_share=background_share,
                      config=name_value_pairs(options, "-o/--option"), progress=True, cluster=cluster,
                      log=lambda message: click.echo(message, err=True))
        # The method-aware attack first: a method it cannot know is refused before anything is attacked.
        aware = None if method_aware is None else reid_risk(store, run_ids, method_aware=method_aware, **attack)
        blind = reid_risk(store, run_ids, **attack)
        for line in reid_lines(store, blind if aware is None else pd.concat([blind, aware], ignore_index=True)):
            click.echo(line)
        if aware is not None:
            from workbench.privacy.reid_attacks.method_aware import difference_lines
            for line in difference_lines(blind, aware):
                click.echo(line)
