"""Writing pseudonyms into a document, keeping track of where each one lands."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from workbench.model import Document


@dataclass(frozen=True, slots=True)
class Replaced:
    span_index: int
    start: int  # in the pseudonymised text
    end: int
    original: str
    pseudonym: str


def pseudonymise(doc: Document, pseudonyms: Mapping[int, str]) -> tuple[str, list[Replaced]]:
    """The document with each span index in `pseudonyms` replaced; spans not in it stay as they are."""
    out, placed, cursor, shift = [], [], 0, 0
    for i, span in enumerate(doc.spans):
        if i not in pseudonyms:
            continue
        new = pseudonyms[i]
        out.append(doc.text[cursor:span.start])
        start = span.start + shift
        placed.append(Replaced(i, start, start + len(new), span.text, new))
        out.append(new)
        shift += len(new) - (span.end - span.start)
        cursor = span.end
    out.append(doc.text[cursor:])
    return "".join(out), placed
