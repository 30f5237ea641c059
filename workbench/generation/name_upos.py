"""The name rule in the engine (issue 42): which runs use it, what their signature records.

A name span is a proper noun whatever the tagger says (workbench.upos.label_upos.name_rule):
the engine hands the rule's UPOS, not the tagger's, to the slots and to the UPOS filter, so
fill-mask with --upos-filter no longer asks for a verb in place of `Lis` and the upos baseline
draws a PUD proper noun for it.

The rule changes a run's output only where the run uses the original's UPOS (the UPOS or
morphology filter, or a generator that draws by it: Generator.reads_original_upos) and the
tagger read some name span of the corpus as something else. Such a run's signature config
records `"names": NAME_RULE`, so it gets a new id and is never resumed from, or mistaken for,
a run made before the rule; every other run's id is what it was.
"""

from __future__ import annotations

from collections.abc import Mapping

from workbench.upos.label_upos import NAME_RULE, name_rule

Tags = Mapping[tuple[str, int], "str | None"]


def reads_original_upos(generator) -> bool:
    options = generator.options
    return bool(options.upos_filter or options.morph_filter or generator.reads_original_upos())


def ruled_upos(corpus, upos: Tags) -> dict[tuple[str, int], str | None]:
    """The originals' tags with the name rule applied, keyed as given (doc_id, span index)."""
    out = dict(upos)
    for doc in corpus.documents:
        for i, span in enumerate(doc.spans):
            if (doc.doc_id, i) in out:
                out[(doc.doc_id, i)] = name_rule(span.label, out[(doc.doc_id, i)])
    return out


def rule_changes(corpus, upos: Tags) -> bool:
    """Whether the rule changes the UPOS of some span the run replaces."""
    return any(name_rule(s.label, upos.get((d.doc_id, i))) != upos.get((d.doc_id, i))
               for d in corpus.documents for i, s in enumerate(d.spans) if s.mask)


def with_name_rule(config: dict, corpus, generator, upos: Tags | None) -> dict:
    """The config a run signature records: with the rule where it changes what the run uses.
    upos: the tagger's tags of the originals (engine.original_upos); None where the caller has
    none (a run that does not read them needs none)."""
    if upos is None or not reads_original_upos(generator) or not rule_changes(corpus, upos):
        return config
    return {**config, "names": NAME_RULE}
