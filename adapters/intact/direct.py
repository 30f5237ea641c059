"""Direct identifiers (004 §3.1): spans that identify a person on their own get the label, no model.

004 replaces direct identifiers ("person names or phone numbers") by their entity type
without generating candidates, which also keeps generated names or codes from matching
real entities. Which spans are direct:
  - where the corpus annotates identifier types (the TAB release: DIRECT / QUASI), the
    DIRECT ones, whatever their label;
  - where it does not (PGV-PII, the TAB text/span pair shipped as tab-test), the labels 004
    §5.2 treats as direct: PERSON and CODE, and PGV-PII's personal_name (its PERSON).
"""

from __future__ import annotations

DIRECT = "DIRECT"
# Labels that are direct identifiers when a corpus has no identifier types (compared case-insensitively).
DIRECT_LABELS = frozenset({"person", "code", "personal_name"})


def is_direct(label: str, identifier_type: str = "") -> bool:
    if identifier_type:
        return identifier_type.strip().upper() == DIRECT
    return label.strip().lower() in DIRECT_LABELS
