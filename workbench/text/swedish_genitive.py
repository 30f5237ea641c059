"""The Swedish genitive of a name or noun phrase drawn in its base form (issue 27).

Swedish marks the genitive with -s on the last word of the phrase (`Eva` -> `Evas`, `Anna
Berg` -> `Anna Bergs`). A word that already ends in s, x or z takes nothing more (`Lars` ->
`Lars`, `Max` -> `Max`, `Inez` -> `Inez`: Språkrådet's rule; the apostrophe of older usage,
`Lars'`, is not written), which also keeps a word already in the genitive (`Evas`) from
being doubled. An abbreviation written in capitals, or a word ending in a digit, takes a
colon (`BBC` -> `BBC:s`, `Karl XII` -> `Karl XII:s`, `G7` -> `G7:s`).

English possessives are not made here: TAB and PGV-PII spans leave the `'s` outside the span,
in the text that stays, so an English pseudonym is right in its base form.

Used by every generator that reinflects a drawn base form (the random and upos baselines and
the surrogate, with their `genitive` setting), so they all follow one rule.
"""

from __future__ import annotations

# Letters after which no genitive s is added (they already end in a sibilant the -s would double).
SIBILANT_ENDINGS = ("s", "x", "z")


def genitive(text: str) -> str:
    """`text` in the Swedish genitive: its last word inflected, the rest as it stands."""
    stripped = text.rstrip()
    if not stripped:
        return text
    trailing = text[len(stripped):]
    last = stripped.split()[-1]
    if not last[-1].isalnum():  # ends in punctuation ("A.B.", "Jr."): no safe place for the s
        return text
    if last[-1].casefold() in SIBILANT_ENDINGS:
        return text
    if last[-1].isdigit() or last.isupper():
        return stripped + ":s" + trailing
    return stripped + "s" + trailing


# How a slot says its original is in the genitive (Slot.features: the UD morphologizer's Case).
GENITIVE_FEATURE = "Case=Gen"


def inflect_for_slot(candidates: tuple[str, ...], lang: str, features: tuple[str, ...]) -> tuple[str, ...]:
    """A generator's base-form candidates put in the genitive when the slot's original is a
    Swedish genitive (Case=Gen tagged in context); as they are otherwise. Two draws that meet in
    one genitive ("Eva", "Evas") are kept once, in the first one's place."""
    if lang != "sv" or GENITIVE_FEATURE not in features:
        return candidates
    return tuple(dict.fromkeys(genitive(c) for c in candidates))
