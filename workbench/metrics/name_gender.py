"""The gender of a personal name from gendered first-name lists (Faker's EN and SV lists).

    gender_of("sv", "Anna Svensson") == "female"     gender_of("sv", "Erik") == "male"
    gender_of("en", "Jordan Lee") is None            (in both lists)
    gender_of("sv", "Farzana") is None               (in neither)

A name's gender is the gender of its first word when that word is in exactly one of the
language's lists (male or female), else unknown (None). English reads the union of Faker's
en_US and en_GB lists, Swedish sv_SE's; a name in one locale's male list and another's
female list is unknown. A Swedish first word in the genitive (`Annas`) is looked up without
its `s` when the word itself is in no list (`Lars` is a name, not the genitive of `Lar`); an
English one without its `'s`. Which label is a personal name is the UPOS check's list
(workbench.upos.label_upos.NAME_LABELS), so both read a corpus's labels alike.
"""

from __future__ import annotations

from functools import cache

from workbench.upos.label_upos import NAME_LABELS

MALE, FEMALE = "male", "female"
# Faker locales whose person providers hold the gendered lists, per language.
LOCALES = {"en": ("en_US", "en_GB"), "sv": ("sv_SE",)}
_STRIP = ".,;:!?\"'()[]«»“”‘’"


def is_person_label(label: str) -> bool:
    return str(label).strip().lower() in NAME_LABELS


@cache
def gendered_names(lang: str) -> dict[str, frozenset[str]]:
    """MALE/FEMALE -> the casefolded first names of the language's locales (empty where none)."""
    import importlib
    lists: dict[str, set[str]] = {MALE: set(), FEMALE: set()}
    for locale in LOCALES.get(lang, ()):
        try:
            provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
        except ModuleNotFoundError:
            from workbench.infra.errors import MissingExtra
            raise MissingExtra("name-gender agreement (Faker's first-name lists)", "metrics", "faker") from None
        lists[MALE].update(n.casefold() for n in getattr(provider, "first_names_male", ()))
        lists[FEMALE].update(n.casefold() for n in getattr(provider, "first_names_female", ()))
    return {g: frozenset(names) for g, names in lists.items()}


def _word_gender(lang: str, word: str) -> str | None:
    lists = gendered_names(lang)
    found = [g for g, names in lists.items() if word.casefold() in names]
    return found[0] if len(found) == 1 else None


def gender_of(lang: str, name: str) -> str | None:
    """MALE or FEMALE by the name's first word (see the module's docstring); None when unknown."""
    words = name.split()
    if not words:
        return None
    word = words[0].strip(_STRIP)
    gender = _word_gender(lang, word)
    if gender is None and not any(word.casefold() in names for names in gendered_names(lang).values()):
        for ending in ("'s", "’s") if lang == "en" else ("s",) if lang == "sv" else ():
            if word.endswith(ending) and len(word) > len(ending) + 1:
                return _word_gender(lang, word[:-len(ending)])
    return gender
