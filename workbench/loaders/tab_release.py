"""The full TAB release (echr_train.json / echr_dev.json / echr_test.json).

A JSON list of documents, each with `annotations` = {annotatorN: {"entity_mentions": […]}}.
Paper 003 pseudonymises the mentions that need masking (identifier_type DIRECT or
QUASI) of quality-checked documents; both are options here. entity_id and identifier_type
are kept (INTACT labels DIRECT mentions outright, 004 §3.1).
"""

from __future__ import annotations

from pathlib import Path

from workbench.data_model import Corpus, Document
from workbench.infra.errors import CorpusError
from workbench.loaders import problems
from workbench.loaders.files import read_json
from workbench.loaders.validate import RawSpan, build_document

MASKED_TYPES = ("DIRECT", "QUASI")


def load_tab_release(path: str | Path, *, annotator: str | None = None,
                     identifier_types: tuple[str, ...] = MASKED_TYPES,
                     keep_unmasked_as_context: bool = False,
                     quality_checked_only: bool = False, name: str | None = None) -> Corpus:
    """annotator: which annotation layer (default: the first one listed for each document).

    identifier_types: mentions to replace. With keep_unmasked_as_context the other
    mentions are kept as spans with mask=False (visible in exports, never replaced).
    """
    path = Path(path)
    data = read_json(path)
    if not isinstance(data, list):
        raise CorpusError(str(path), f"expected a JSON list of documents, found a {type(data).__name__}")
    with problems.loading_file():
        return _load(path, data, annotator, identifier_types, keep_unmasked_as_context, quality_checked_only, name)


def _load(path: Path, data: list, annotator, identifier_types, keep_unmasked_as_context, quality_checked_only,
          name) -> Corpus:
    documents: list[Document] = []
    first_seen: dict[str, int] = {}
    for position, item in enumerate(data):
        if not isinstance(item, dict) or "doc_id" not in item:
            raise CorpusError(str(path), f"item {position} is not a document with a doc_id")
        doc_id = str(item["doc_id"])
        with problems.checking_document():  # `workbench validate` reads on past a bad document
            if doc_id in first_seen:
                raise CorpusError(str(path), f"duplicate document id: items {first_seen[doc_id]} and {position}",
                                  doc_id=doc_id)
            first_seen[doc_id] = position
            if quality_checked_only and not item.get("quality_checked", False):
                continue
            layers = item.get("annotations") or {}
            if not isinstance(layers, dict) or not layers:
                raise CorpusError(str(path), "has no annotation layers", doc_id=doc_id)
            chosen = annotator or next(iter(layers))
            if chosen not in layers:
                raise CorpusError(str(path), f"no annotator {chosen!r} (has: {', '.join(layers)})", doc_id=doc_id)
            layer = layers[chosen]
            mentions = layer.get("entity_mentions", []) if isinstance(layer, dict) else None
            if not isinstance(mentions, list):
                found = type(layer if mentions is None else mentions).__name__
                raise CorpusError(str(path), f"annotation layer {chosen!r} is not {{\"entity_mentions\": [...]}} "
                                  f"(found a JSON {found})", doc_id=doc_id)
            raw = []
            for i, m in enumerate(mentions):
                if not isinstance(m, dict):
                    raise CorpusError(str(path), f"mention of annotator {chosen!r} is a JSON {type(m).__name__}, "
                                      "not an object", doc_id=doc_id, span=f"#{i} {m!r:.40}")
                masked = m.get("identifier_type") in identifier_types
                if not masked and not keep_unmasked_as_context:
                    continue
                entity = m.get("entity_id")
                raw.append(RawSpan(m.get("start_offset"), m.get("end_offset"), str(m.get("entity_type")),
                                   entity_id=f"{doc_id}|{entity}" if entity is not None else None,
                                   mask=masked, stated_text=m.get("span_text"),
                                   identifier_type=str(m.get("identifier_type") or "")))
            meta = {"annotator": chosen, "dataset_type": item.get("dataset_type"),
                    "quality_checked": item.get("quality_checked")}
            # Nested mentions (as in the test split derived from this release) fold into the outer one.
            documents.append(build_document(str(path), doc_id, item.get("text"), "en", raw, drop_nested=True,
                                            meta={k: v for k, v in meta.items() if v is not None}))
    return Corpus(name or path.stem, str(path), tuple(documents))
