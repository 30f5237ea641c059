"""Entity ids for mentions the file gives none (PGV-PII doccano JSONL, the TAB text/span pair).

Rule, stated once: within one document, mentions with the same label whose texts are
equal after collapsing white space and ignoring case are one entity. "Elizabeth Rivera"
twice is one person; "Elizabeth" and "Elizabeth Rivera" stay two entities, because
telling a short mention from a different person needs coreference we do not have.
In a Swedish document a mention that is the genitive of another mention of its label is that
mention's entity too (issue 37): `Annas` with `Anna`, `BBC:s` with `BBC`, `Anna Bergs` with
`Anna Berg` (workbench.text.swedish_genitive.genitive_base). Only a base form the document has
is linked, never one made by cutting an s: `Lars` alone is its own entity, and `Lars` is not
`Lar`'s genitive (a name that ends in s as it stands); its entity id is the base form's.

Where the file gives ids to some mentions (the TAB release's entity_id, a doccano entity id or
relation: workbench.loaders.doccano_entities), its ids win and the rule fills in the rest: a
mention without an id joins the file's entity that has a mention reading like it (same label,
same normalised text), when exactly one entity of the document does; with none it is grouped
by the rule; with two (a father and son both "Jan Berg") the file kept them apart on purpose,
so the rule cannot choose and the mention is an entity of its own (grouped by the rule with
its unlinked look-alikes). Two of the file's entities are never joined by the rule.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from workbench.text.swedish_genitive import genitive_base


def normalise_mention(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


def inferred_entity_id(doc_id: str, label: str, text: str) -> str:
    return f"{doc_id}|{label}|{normalise_mention(text)}"


def _grouping_texts(mentions: Sequence[tuple[str, str, str | None]], lang: str) -> list[str]:
    """The text each mention is grouped by: its own, or in Swedish the base form it is the
    genitive of, when the document has a mention of that label reading so."""
    if lang != "sv":
        return [text for _, text, _ in mentions]
    by_label: dict[str, list[str]] = {}
    for label, text, _ in mentions:
        by_label.setdefault(label, []).append(text)
    return [genitive_base(text, by_label[label]) or text for label, text, _ in mentions]


def assign_entities(doc_id: str, mentions: Sequence[tuple[str, str, str | None]], lang: str = "") -> list[str]:
    """The entity id of each (label, text, id the file gives or None) mention of one document
    in language `lang` (Swedish links genitives to their base forms)."""
    texts = _grouping_texts(mentions, lang)
    given: dict[tuple[str, str], set[str]] = {}
    for (label, _, entity), text in zip(mentions, texts):
        if entity is not None:
            given.setdefault((label, normalise_mention(text)), set()).add(entity)
    ids = []
    for (label, _, entity), text in zip(mentions, texts):
        if entity is None:
            alike = given.get((label, normalise_mention(text)), set())
            entity = next(iter(alike)) if len(alike) == 1 else inferred_entity_id(doc_id, label, text)
        ids.append(entity)
    return ids


def is_rule_id(doc_id: str, label: str, text: str, entity_id: str) -> bool:
    """Whether `entity_id` is one the grouping rule gives a mention reading `text`: its own
    text's, or (a Swedish genitive) its base form's, the text without `:s` or `s`."""
    key = normalise_mention(text)
    stems = [key[:-2]] if key.endswith(":s") else [key[:-1]] if key.endswith("s") else []
    return entity_id in {inferred_entity_id(doc_id, label, t) for t in (key, *stems)}


@dataclass(frozen=True, slots=True)
class EntityCounts:
    """How many entities (per document, over the spans to replace) each source gave."""
    from_file: int  # entities whose id the file stated (TAB entity_id, doccano entity id or relation)
    by_rule: int  # entities the grouping rule formed

    def __str__(self) -> str:
        return f"{self.from_file} entities from the file's ids, {self.by_rule} by the grouping rule"


def entity_counts(corpus) -> EntityCounts:
    """Counts for a loaded corpus (or one read back from the run store: the ids are stored).

    An entity is the rule's when its id is the one the rule gives its mentions; a file's id
    never has that form unless it equals the rule's (then the two agree anyway)."""
    entities: dict[tuple[str, str], bool] = {}
    for doc in corpus.documents:
        for i in doc.masked_spans:
            span = doc.spans[i]
            key = (doc.doc_id, span.entity_id)
            by_rule = is_rule_id(doc.doc_id, span.label, span.text, span.entity_id)
            entities[key] = entities.get(key, True) and by_rule
    rule = sum(entities.values())
    return EntityCounts(len(entities) - rule, rule)
