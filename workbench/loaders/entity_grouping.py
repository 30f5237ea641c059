"""Entity ids for formats that carry none (PGV-PII doccano JSONL, the TAB text/span pair).

Rule, stated once: within one document, mentions with the same label whose texts are
equal after collapsing white space and ignoring case are one entity. "Elizabeth Rivera"
twice is one person; "Elizabeth" and "Elizabeth Rivera" stay two entities, because
telling a short mention from a different person needs coreference we do not have.
"""

from __future__ import annotations

import re


def normalise_mention(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


def inferred_entity_id(doc_id: str, label: str, text: str) -> str:
    return f"{doc_id}|{label}|{normalise_mention(text)}"
