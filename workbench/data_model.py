"""The data every stage passes on: spans, documents, corpora.

Frozen, slotted dataclasses validated on construction, so a bad value fails where it
is made rather than three stages later. Offsets are Python string indices (code
points), end exclusive, as in doccano and TAB.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field

# ISO 639-1 codes the workbench has vocabularies, taggers and defaults for.
LANGUAGES = ("en", "sv")
# Their names in English, as prompts and tables write them (the one table of them).
LANGUAGE_NAMES = {"en": "English", "sv": "Swedish"}
# Their ISO 639-2/3 codes, as corpus metadata and file names write them (PGV-PII's _ENG / _SWE).
LANGUAGE_CODES_3 = {"en": "eng", "sv": "swe"}


@dataclass(frozen=True, slots=True)
class Span:
    start: int
    end: int
    text: str
    label: str
    # Mentions of the same real-world entity share an id; formats without ids get one
    # from a stated rule (see workbench.loaders.entity_grouping).
    entity_id: str
    # False: annotated but not to be replaced (e.g. TAB NO_MASK when asked for); such a
    # span stays original text in every window and gets no slot.
    mask: bool = True
    # TAB's identifier_type of the mention (DIRECT, QUASI, NO_MASK); "" where the format has
    # none (PGV-PII, the TAB text/span pair). INTACT (004 §3.1) labels DIRECT spans without
    # asking a model. Left out of Corpus.content_hash, so the hashes and run ids of corpora
    # loaded before it existed stay the same; the run store's corpus copy keeps it (migration 8).
    # Slots carry it, so a generated run's signature names it: Corpus.identifier_types_hash.
    identifier_type: str = ""

    def __post_init__(self) -> None:
        if self.start < 0 or self.end <= self.start:
            raise ValueError(f"span [{self.start}, {self.end}) is empty or reversed")
        if len(self.text) != self.end - self.start:
            raise ValueError(f"span text {self.text!r} does not fit [{self.start}, {self.end})")


@dataclass(frozen=True, slots=True)
class Document:
    doc_id: str
    text: str
    lang: str
    spans: tuple[Span, ...]  # sorted by start, non-overlapping
    # Source-specific extras (doccano id, TAB dataset_type …) as sorted key/value pairs,
    # kept hashable so documents stay immutable.
    meta: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if self.lang not in LANGUAGES:
            raise ValueError(f"unknown language {self.lang!r} (known: {', '.join(LANGUAGES)})")
        previous_end = 0
        for i, span in enumerate(self.spans):
            if span.end > len(self.text):
                raise ValueError(f"span {i} [{span.start}, {span.end}) ends after the text ({len(self.text)})")
            if span.start < previous_end:
                raise ValueError(f"span {i} [{span.start}, {span.end}) overlaps the span before it")
            if self.text[span.start:span.end] != span.text:
                raise ValueError(f"span {i} text {span.text!r} differs from the document at its offsets")
            previous_end = span.end

    @property
    def masked_spans(self) -> tuple[int, ...]:
        """Indices of the spans to replace, in text order."""
        return tuple(i for i, s in enumerate(self.spans) if s.mask)


@dataclass(frozen=True, slots=True)
class Corpus:
    name: str
    source: str  # the file(s) it was loaded from, for messages and the run signature
    documents: tuple[Document, ...]
    # sha256 over ids, languages, texts and spans: the corpus part of a run signature.
    content_hash: str = field(init=False, repr=False, compare=False)
    # sha256 over the spans' identifier types, "" when no span has one (see Span.identifier_type).
    identifier_types_hash: str = field(init=False, repr=False, compare=False)
    _by_id: dict = field(init=False, repr=False, compare=False)  # doc_id -> Document, for document()

    def __post_init__(self) -> None:
        ids = [d.doc_id for d in self.documents]
        if len(set(ids)) != len(ids):
            dup = sorted(i for i, n in Counter(ids).items() if n > 1)  # not ids.count: quadratic
            raise ValueError(f"duplicate document ids in {self.name}: {dup[:5]}")
        h = hashlib.sha256()
        for d in self.documents:
            h.update(json.dumps([d.doc_id, d.lang, d.text,
                                 [[s.start, s.end, s.label, s.entity_id, s.mask] for s in d.spans]],
                                ensure_ascii=False).encode())
        object.__setattr__(self, "content_hash", h.hexdigest())
        # Apart from content_hash, and "" without identifier types, so that every corpus
        # without them (all shipped ones, every format but the TAB release) keeps its run ids.
        types = [[d.doc_id, [s.identifier_type for s in d.spans]] for d in self.documents]
        has_types = any(s.identifier_type for d in self.documents for s in d.spans)
        object.__setattr__(self, "identifier_types_hash", hashlib.sha256(
            json.dumps(types, ensure_ascii=False).encode()).hexdigest() if has_types else "")
        object.__setattr__(self, "_by_id", {d.doc_id: d for d in self.documents})

    def document(self, doc_id: str) -> Document:
        try:
            return self._by_id[doc_id]
        except KeyError:
            raise KeyError(f"no document {doc_id!r} in corpus {self.name}") from None

    @property
    def n_slots(self) -> int:
        return sum(len(d.masked_spans) for d in self.documents)
