"""Swedish genitives in the engine (issue 37): which runs handle them, what their signature
records, and the base form an entity's pseudonym is kept in.

A run handles Swedish genitives when its generator draws base forms the engine may reinflect
(Generator.reinflects_genitive: random, upos and the surrogate, by their `genitive` setting, on
by default) or the morphology filter is on, and the corpus has a Swedish span that can be a
genitive at all (swedish_genitive.genitive_possible: one ending in s, x or z). Such a run

  - reads which spans are genitives, from the tagger's Case=Gen and the form in context
    (workbench.upos.genitive_reading);
  - puts a reinflecting generator's candidates for those spans in the genitive, and lets the
    morphology filter reinflect its best candidate of a nominal UPOS where none is a genitive
    (workbench.generation.pseudonym_choice);
  - keeps each entity's pseudonym in its base form under --consistent and gives every mention its
    own case (`Amanda` for `Anna`, `Amandas` for `Annas`: workbench.generation.consistency).

Its signature's config records `"genitive": GENITIVE_RULE`. A run that does not handle them
records nothing, and its output is what it was before issue 37: English corpora, corpora whose
Swedish spans cannot be genitives (the tests' tiny corpus), generators whose model writes the form
(fill-mask without --morph-filter, ollama), and `-o genitive=false`, which is the run made before.
"""

from __future__ import annotations

from workbench.text.swedish_genitive import GENITIVE_RULE, genitive, genitive_possible


def handles_genitive(corpus, generator) -> bool:
    return (generator.reinflects_genitive() or generator.options.morph_filter) and genitive_possible(corpus)


def with_genitive_rule(config: dict, corpus, generator) -> dict:
    """The config a run signature records: the generator's, plus the genitive rule where the run
    handles Swedish genitives (a setting whose default differs by language is hashed where it acts)."""
    return {**config, "genitive": GENITIVE_RULE} if handles_genitive(corpus, generator) else config


def entity_base(pseudonym: str, candidates, rank: int | None, genitive_mention: bool) -> str:
    """The base form of a mention's pick, the form its entity's later mentions are made from: the
    candidate the engine put in the genitive for a genitive mention (`Amanda` of `Amandas`), else
    the pick as it is (a model's own genitive, `Guds`, is kept as written: nothing says its base)."""
    if genitive_mention and rank is not None and 0 <= rank < len(candidates) \
            and genitive(candidates[rank]) == pseudonym:
        return candidates[rank]
    return pseudonym


def mention_form(base: str, genitive_mention: bool) -> str:
    """An entity's pseudonym as one of its mentions writes it."""
    return genitive(base) if genitive_mention else base
