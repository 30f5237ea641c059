"""Which mentions of a doccano line the file says are one entity.

A doccano file can state entities in two ways, alone or together (docs: README "Corpora"):

  an entity id in the span   [start, end, LABEL, ENTITY] or
                             {"start_offset": s, "end_offset": e, "label": L, "entity_id": ENTITY}
                             ENTITY is a string or an integer (7 and "7" are one id); null: none
  doccano's relations        {"entities": [{"id": 11, "start_offset": …, "end_offset": …, "label": …}, …],
                              "relations": [{"id": 1, "from_id": 11, "to_id": 12, "type": "coref"}, …]}
                             as doccano exports a sequence-labelling project with relations. A relation
                             whose type says coreference (`coref`, `coreference`, or a name starting
                             with `same`: `same_as`, `SAME-PERSON` …; case, `-` and spaces ignored)
                             joins its two spans, in either direction and transitively; relations of
                             other types (`works_for` …) are ignored, since they join two entities.
Ids and relations hold within their line (document), as doccano's span ids do. A group of spans
joined by relations takes the entity id one of them states (two different ones are an error), or
else `linked:<doccano id of its first span>`. Mentions of one entity must have one label: a
PERSON joined to a LOC is almost surely a slip, and consistency would give a place a person's name.
Spans the file says nothing about fall back to the grouping rule (workbench.loaders.entity_grouping).

Document metadata is not a form: doccano writes it at upload, before any span exists, and its
editor cannot change it, so it cannot name the spans an annotator draws.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import NoReturn

# fail(problem, span or None): raises the loader's CorpusError naming file, line, document and span.
Fail = Callable[[str, "str | None"], NoReturn]

LINKED_PREFIX = "linked:"


@dataclass(frozen=True, slots=True)
class DoccanoSpan:
    start: object  # as found; build_document checks the offsets
    end: object
    label: str
    span_id: object  # doccano's own id of the span (what relations name), None when absent
    entity: str | None  # the entity id the span states, None when it states none

    def where(self, index: int) -> str:
        return f"#{index} [{self.start}, {self.end}) {self.label}"


def is_coreference(relation_type: str) -> bool:
    name = re.sub(r"[\s\-]+", "_", relation_type.strip().casefold())
    return name in ("coref", "coreference") or name.startswith("same")


def _entity_value(value: object, where: str, fail: Fail) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        fail(f"entity id {value!r} is a JSON {_json_type(value)}, not a string or an integer", where)
    text = str(value).strip()
    if not text:
        fail("entity id is an empty string", where)
    return text


def _json_type(value: object) -> str:
    return {bool: "boolean", float: "number", list: "list", dict: "object"}.get(type(value), type(value).__name__)


def parse_span(item: object, index: int, fail: Fail) -> DoccanoSpan:
    """One entry of `label` / `entities`: [start, end, LABEL(, ENTITY)] or doccano's object form."""
    if isinstance(item, dict):  # doccano's newer exports and relation projects write objects
        start, end, label = item.get("start_offset"), item.get("end_offset"), str(item.get("label"))
        span_id, entity = item.get("id"), item.get("entity_id")
    elif isinstance(item, list) and len(item) in (3, 4):
        start, end, label = item[0], item[1], str(item[2])
        span_id, entity = None, item[3] if len(item) == 4 else None
    else:
        fail(f"label #{index} is not [start, end, LABEL] or [start, end, LABEL, ENTITY]", f"#{index} {item!r}")
    where = DoccanoSpan(start, end, label, span_id, None).where(index)
    return DoccanoSpan(start, end, label, span_id, _entity_value(entity, where, fail))


def _relation_ends(relations: object, by_id: dict, fail: Fail) -> list[tuple[int, int]]:
    """The (span index, span index) pairs the coreference relations join; every relation is checked."""
    if not isinstance(relations, list):
        fail(f"`relations` is a JSON {_json_type(relations)}, not a list", None)
    pairs = []
    for k, rel in enumerate(relations):
        if not isinstance(rel, dict):
            fail(f"relation #{k} is a JSON {_json_type(rel)}, not an object with from_id, to_id and type", None)
        name = f"relation #{k}" + (f" (id {rel['id']!r})" if "id" in rel else "")
        if not isinstance(rel.get("type"), str):
            fail(f"{name} has no type (a string such as \"coref\")", None)
        ends = []
        for key in ("from_id", "to_id"):
            value = rel.get(key)
            if isinstance(value, bool) or not isinstance(value, (int, str)) or value not in by_id:
                known = ", ".join(repr(i) for i in by_id) or "none: give each span its doccano `id`"
                fail(f"{name} has {key} {value!r}, but no span of this document has that id (span ids: {known})",
                     None)
            ends.append(by_id[value])
        if is_coreference(rel["type"]):
            pairs.append((ends[0], ends[1]))
    return pairs


def file_entities(spans: list[DoccanoSpan], relations: object, fail: Fail) -> list[str | None]:
    """Each span's entity as the file states it (without the document's id), None where it states none."""
    by_id: dict[object, int] = {}
    for i, span in enumerate(spans):
        if span.span_id is None:
            continue
        if isinstance(span.span_id, bool) or not isinstance(span.span_id, (int, str)):
            fail(f"span id {span.span_id!r} is a JSON {_json_type(span.span_id)}, not an integer or a string",
                 span.where(i))
        if span.span_id in by_id:
            other = by_id[span.span_id]
            fail(f"span id {span.span_id!r} is also the id of span {spans[other].where(other)}", span.where(i))
        by_id[span.span_id] = i
    parent = list(range(len(spans)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b in _relation_ends(relations if relations is not None else [], by_id, fail):
        ra, rb = root(a), root(b)
        parent[max(ra, rb)] = min(ra, rb)  # the root is the group's first span in the file
    stated: dict[int, int] = {}  # group root -> the first member that states an entity id
    for i, span in enumerate(spans):
        if span.entity is None:
            continue
        first = stated.setdefault(root(i), i)
        if spans[first].entity != span.entity:
            fail(f"entity id {span.entity!r} differs from entity id {spans[first].entity!r} of span "
                 f"{spans[first].where(first)}, to which coreference relations join it", span.where(i))
    sizes: dict[int, int] = {}
    for i in range(len(spans)):
        sizes[root(i)] = sizes.get(root(i), 0) + 1
    values: list[str | None] = []
    for i in range(len(spans)):
        r = root(i)
        if r in stated:
            values.append(spans[stated[r]].entity)
        else:
            values.append(f"{LINKED_PREFIX}{spans[r].span_id}" if sizes[r] > 1 else None)
    _check_labels(spans, values, fail)
    return values


def _check_labels(spans: list[DoccanoSpan], values: list[str | None], fail: Fail) -> None:
    first_of: dict[str, int] = {}
    for i, value in enumerate(values):
        if value is None:
            continue
        first = first_of.setdefault(value, i)
        if spans[first].label != spans[i].label:
            fail(f"a mention of entity {value!r} labelled {spans[i].label}, but span {spans[first].where(first)} "
                 f"of the same entity is {spans[first].label}: one entity has one label (fix the label, the "
                 "entity id or the relation)", spans[i].where(i))
