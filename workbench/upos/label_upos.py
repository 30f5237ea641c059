"""What a span's label implies about its UPOS: the check on the tagger behind UPOS accuracy.

UPOS accuracy (003 Table 3) compares a replacement's UPOS with the tagger's UPOS for the
original. Where the tagger is wrong about the original (the Swedish tagger tags some names
VERB: `Farzana` → VERB), the UPOS filter asks for a verb (`lägger` in place of `Farzana`)
and UPOS accuracy rewards agreeing with the mistake (issue 24). So reports give, beside UPOS
accuracy, the share of spans whose original's UPOS contradicts its label.

The sets are generous, so that only a true contradiction counts: a name tagged NOUN or X is
an unknown word, not a contradiction; PART is the English possessive `'s`, a token of its
own in UD and the right-most word of `Chasowa's`. Labels that imply no part of speech
(TAB's DEM and MISC, PGV-PII's `other`, any label not below) are not judged.
"""

from __future__ import annotations

# Tags every label here admits: an unknown word (X) and the English possessive (PART).
_ANY = frozenset({"X", "PART"})
_NAME = frozenset({"PROPN", "NOUN"}) | _ANY
# Places and organisations also end in adjectives (`Nordic`), numbers (`Storgatan 5`).
_PLACE_OR_ORG = _NAME | {"ADJ", "NUM"}
# `1999`, `May`, `Monday`, `last year`, `yesterday`, `early`.
_DATE = frozenset({"NUM", "NOUN", "PROPN", "ADJ", "ADV"}) | _ANY
# `36110/97`, `no. 12`, `§ 3`.
_CODE = frozenset({"NUM", "NOUN", "PROPN", "SYM"}) | _ANY
# `500 euros`, `50 %`, `a few`, `double`, `2,000,000 Swedish kronor (SEK)`.
_QUANTITY = frozenset({"NUM", "NOUN", "PROPN", "SYM", "ADJ", "DET"}) | _ANY

# Labels (lower case) of personal names: PGV-PII's, TAB's and common aliases of a user's
# doccano labels (the agreement family's name-gender check reads the same list).
NAME_LABELS = ("person", "per", "personal_name", "name")

# Label (lower case) → the UPOS it admits. PGV-PII's and TAB's labels, and common aliases
# of a user's doccano labels.
PLAUSIBLE_UPOS: dict[str, frozenset[str]] = {
    **dict.fromkeys(NAME_LABELS, _NAME),
    **dict.fromkeys(("loc", "location", "geographic", "gpe"), _PLACE_OR_ORG),
    **dict.fromkeys(("org", "organisation", "organization", "institution"), _PLACE_OR_ORG),
    **dict.fromkeys(("date", "datetime", "time"), _DATE),
    **dict.fromkeys(("code",), _CODE),
    **dict.fromkeys(("quantity",), _QUANTITY),
}

# Above this share of a corpus's judged spans, a report's Table 3 caption says so.
CONTRADICTION_NOTE_ABOVE = 0.03


# The name rule (issue 42): a span labelled a personal name is a proper noun whatever the tagger
# says. The Swedish UD tagger reads 147 of PGV-PII SV's 242 name spans as PROPN (VERB, NOUN, ADJ
# for the rest: `Lis` VERB), so the UPOS filter asked for a verb (`Lis` -> `utestängdes`) and
# UPOS accuracy rewarded agreeing with that mistake. Where an original's UPOS is used (the UPOS
# filter and the upos baseline in the engine, UPOS accuracy in the metrics) a name span's tag is
# PROPN; PART stays (the English possessive `'s`, the right-most word of `Chasowa's`), and a span
# with no token stays untagged. The store keeps the tagger's own tags: the tagger's agreement
# with the labels (metric upos_tagger_name_propn) reads them.
NAME_UPOS = "PROPN"
_KEPT_FOR_NAMES = frozenset({NAME_UPOS, "PART"})
# What a run signature's config records (key "names") where the rule changed the UPOS it uses.
NAME_RULE = "PROPN"


def is_name_label(label: str) -> bool:
    return str(label).strip().lower() in NAME_LABELS


def name_rule(label: str, upos: str | None) -> str | None:
    """The UPOS an original span is taken to have: PROPN for a name span the tagger read as
    anything but PROPN or PART, the tagger's tag otherwise."""
    if upos is None or upos in _KEPT_FOR_NAMES or not is_name_label(label):
        return upos
    return NAME_UPOS


def plausible_upos(label: str) -> frozenset[str] | None:
    """The UPOS a span of this label may have; None: the label implies none (not judged)."""
    return PLAUSIBLE_UPOS.get(str(label).strip().lower())


def contradicts(label: str, upos: str | None) -> bool | None:
    """True where the tagger's UPOS for an original contradicts its label; None where there is
    nothing to judge (no UPOS, or a label that implies none)."""
    allowed = plausible_upos(label)
    if upos is None or allowed is None:
        return None
    return upos not in allowed
