"""The Swedish genitive: the rule every reinflecting step follows (issues 27 and 37).

Swedish marks the genitive with -s on the last word of the phrase (`Eva` -> `Evas`, `Anna
Berg` -> `Anna Bergs`). A word that already ends in s, x or z takes nothing more (`Lars` ->
`Lars`, `Max` -> `Max`, `Inez` -> `Inez`: Språkrådet's rule; the apostrophe of older usage,
`Lars'`, is not written), which also keeps a word already in the genitive (`Evas`) from
being doubled. An abbreviation written in capitals, or a word ending in a digit, takes a
colon (`BBC` -> `BBC:s`, `Karl XII` -> `Karl XII:s`, `G7` -> `G7:s`).

English possessives are not made here: TAB and PGV-PII spans leave the `'s` outside the span,
in the text that stays, so an English pseudonym is right in its base form.

Which spans are genitives is read in context (workbench.upos.genitive_reading); this module
holds the string rules: how a genitive is written (`genitive`), whether a span can be one at
all (`ends_as_genitive`: only a word ending in s, x or z can), and which base form a genitive
mention links to in its document (`genitive_base`: `Annas` -> `Anna`, `BBC:s` -> `BBC`, never
`Lars` -> `Lar`). Used by the engine's reinflection (workbench.generation.pseudonym_choice),
entity grouping (workbench.loaders.entity_grouping), consistency and the surrogate.
"""

from __future__ import annotations

from collections.abc import Iterable

# Letters after which no genitive s is added (they already end in a sibilant the -s would double).
SIBILANT_ENDINGS = ("s", "x", "z")

# What a run signature records when the engine reinflects Swedish genitives (issue 37): the
# genitive read from the tagger's Case=Gen and from the form in context, reinflected by the
# engine for every generator that draws base forms and by the morphology filter. Recorded only
# for a corpus where it can change something (genitive_possible), so other runs keep their ids.
GENITIVE_RULE = "sv:tagger+form"

# Swedish given names that end in s in the nominative (the 64 such names of Faker 30's sv_SE
# first-name lists, casefolded): `Lars` is a name, not the genitive of `Lar`, so entity grouping
# never links the two and the surrogate maps `Lars` as it stands. A genitive of these is written
# as the name itself (`Lars bil`), which the rule above already does.
NOMINATIVE_S_NAMES = frozenset("""
abbas agnes alexis alfons amadeus anas anders andreas andres andréas boris carlos charles claes clas dennis
doris douglas elias elis elvis frans gillis hampus hannes hans hjördis ines iris james jens johannes jonas
julius klas lars linus louis lovis lucas luis lukas magnus maj-lis marcus markus mathias matias mats mattias
matts måns nicholas nicklas niclas nicolas niklas nils pontus rasmus theres thomas tobias tomas
""".split())


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


def ends_as_genitive(text: str) -> bool:
    """Whether `text` can be a Swedish genitive at all: its last character a letter s, x or z
    (`Eriks`, `BBC:s`, `Lars`, `Max`). `Kenya` cannot, whatever a tagger reads."""
    stripped = text.rstrip()
    return bool(stripped) and stripped[-1].isalpha() and stripped[-1].casefold() in SIBILANT_ENDINGS


def genitive_base(text: str, others: Iterable[str]) -> str | None:
    """The base form among `others` of which `text` is the marked genitive, compared without
    case: `Annas` -> `Anna`, `BBC:s` -> `BBC`, `Anna Bergs` -> `Anna Berg`; None when `others`
    holds none, or `text` ends in a name that ends in s as it stands (`Lars` and `Lar`)."""
    key = " ".join(text.split()).casefold()
    if not ends_as_genitive(key) or key.split()[-1] in NOMINATIVE_S_NAMES:
        return None
    for other in others:
        base = " ".join(other.split())
        # Both spellings: "BBC" -> "BBC:s" needs the capitals, "ANNA" -> "ANNAS" their absence.
        if base.casefold() != key and key in (genitive(base).casefold(), genitive(base.casefold())):
            return other
    return None


def strip_genitive(word: str) -> str:
    """The word without a genitive ending it may carry (`Eriks` -> `Erik`, `BBC:s` -> `BBC`),
    unless it is a name ending in s as it stands (`Lars`) or nothing would be left."""
    if word.endswith((":s", ":S")) and len(word) > 2:
        return word[:-2]
    if word[-1:] in ("s", "S") and len(word) > 2 and word.casefold() not in NOMINATIVE_S_NAMES:
        return word[:-1]
    return word


def genitive_possible(corpus) -> bool:
    """Whether reinflection can change anything in this corpus: some Swedish span to replace
    ends as a genitive can (ends_as_genitive). Where none does, a run with and without it is
    the same output, and its signature stays as it was."""
    return any(ends_as_genitive(d.spans[i].text) for d in corpus.documents if d.lang == "sv" for i in d.masked_spans)


# How a slot says its original is in the genitive (Slot.features, the surrogate reads it).
GENITIVE_FEATURE = "Case=Gen"


def inflect_for_slot(candidates: tuple[str, ...], lang: str, features: tuple[str, ...]) -> tuple[str, ...]:
    """Base-form candidates put in the genitive when the slot is a Swedish genitive; as they are
    otherwise. One candidate each, in order (two may meet in one genitive: `Eva`, `Evas`)."""
    if lang != "sv" or GENITIVE_FEATURE not in features:
        return candidates
    return tuple(genitive(c) for c in candidates)
