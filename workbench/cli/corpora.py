"""`workbench corpora` and `workbench generators`: what there is to run."""

from __future__ import annotations

import click


def register(main: click.Group) -> None:
    @main.command("corpora")
    @click.option("--counts/--no-counts", default=True, help="Load each corpus to count documents and spans.")
    def corpora(counts: bool) -> None:
        """List the shipped corpora with their documents and spans per language, and their entities.

        \b
        Example:
          workbench corpora
        """
        from workbench.loaders.entity_grouping import entity_counts
        from workbench.loaders.shipped import SHIPPED, shipped_corpus
        for name, entry in SHIPPED.items():
            line = f"{name:<12} {entry.description}"
            if counts:
                corpus = shipped_corpus(name)
                per_lang: dict[str, list[int]] = {}
                for d in corpus.documents:
                    c = per_lang.setdefault(d.lang, [0, 0])
                    c[0] += 1
                    c[1] += len(d.masked_spans)
                sizes = (f"{lang}: {n} docs, {s} spans" for lang, (n, s) in sorted(per_lang.items()))
                line += "  [" + "; ".join(sizes) + "]"
                line += f"  ({entity_counts(corpus)})"
            click.echo(line)

    @main.command("generators")
    def generators() -> None:
        """List the generators by name (nothing heavy is imported).

        \b
        Example:
          workbench generators
        """
        from workbench.generator_contract.registry import GENERATORS
        for spec in GENERATORS.entries():
            extra = f"  [needs .[{spec.extra}]]" if spec.extra else ""
            click.echo(f"{spec.name:<10} {spec.summary}{extra}")
