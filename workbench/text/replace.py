"""Writing pseudonyms into a document, keeping track of where each one lands."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from workbench.data_model import Document


@dataclass(frozen=True, slots=True)
class Replaced:
    span_index: int
    start: int  # in the pseudonymised text
    end: int
    original: str
    pseudonym: str


def pseudonymise(doc: Document, pseudonyms: Mapping[int, str],
                 outside: Sequence[tuple[int, int, str]] = ()) -> tuple[str, list[Replaced]]:
    """The document with each span index in `pseudonyms` replaced; spans not in it stay as they are.

    outside: edits of text no span of the document covers, (start, end, replacement) in the
    original's offsets, disjoint from the spans replaced and from each other: an imported
    system's own detections (workbench.store.own_detections). They are written into the
    text too, but only the spans are in the returned list (what stands where for each span)."""
    edits = sorted([(doc.spans[i].start, doc.spans[i].end, new, i) for i, new in pseudonyms.items()]
                   + [(a, b, new, None) for a, b, new in outside], key=lambda edit: edit[:2])
    out, placed, cursor, shift = [], [], 0, 0
    for start, end, new, index in edits:
        if start < cursor:
            raise ValueError(f"document {doc.doc_id}: edit [{start}, {end}) overlaps the one before it")
        out.append(doc.text[cursor:start])
        if index is not None:
            placed.append(Replaced(index, start + shift, start + shift + len(new), doc.spans[index].text, new))
        out.append(new)
        shift += len(new) - (end - start)
        cursor = end
    out.append(doc.text[cursor:])
    return "".join(out), placed
