"""Word dictionaries for textual surrogates: Faker's locale data, drawn one word at a time.

A dictionary is named in the surrogate table by a Faker method of the language's locale
("first_name", "last_name", "city", "country", "street_suffix", "company" …) or, for labels
Faker has no list for, `pud:UPOS` (the random baseline's UD PUD word forms with that gold
UPOS: Faker has no list of common Swedish words; its sv_SE lorem is Latin).

    dictionaries = Dictionaries({"en": "en_US", "sv": "sv_SE"})
    dictionaries.draw("sv", "last_name", rng)        # "Lindqvist"
    dictionaries.holds("en", "country", "France")    # True
    dictionaries.gender("sv", "Karin")               # "female"

A draw seeds Faker from `rng` and calls the method, so Faker's own weights (common names
more often) hold; a method that returns several words ("Lake Jeffery", "Andrade, Parsons
and Rojas") gives its longest word, since 002 §3.2 draws every word of a span on its own.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from workbench.adapters.surrogate.pieces import LETTERS, split
from workbench.infra.errors import WorkbenchError

if TYPE_CHECKING:
    from workbench.text.pud_vocabulary import PudInventory

PUD = "pud:"
# Words of a Faker value that are never drawn as a surrogate word on their own.
_JOINERS = frozenset({"and", "of", "the", "och", "&", "de", "la"})
# Faker methods whose provider keeps the whole list as data: membership reads the list itself,
# not a sample of draws (the gendered first-name lists decide keep_gender).
_LISTS = {"first_name": ("first_names",), "first_name_male": ("first_names_male",),
          "first_name_female": ("first_names_female",), "last_name": ("last_names",),
          "country": ("countries",), "city": ("cities",), "street_suffix": ("street_suffixes",),
          "company_suffix": ("company_suffixes",)}
_SAMPLE = 500  # draws that stand for a method's words when its provider keeps no list
# The Faker provider families whose methods give words (names, places, companies, jobs, colours,
# currencies, month and weekday names, lorem). A dictionary must be a method of one of them that
# returns text: anything else Faker answers to (its own `seed_instance`, Python's `__class__`,
# misc's `binary`, a megabyte of bytes per call) gave "None None", a memory address or a hang.
WORD_PROVIDERS = ("person", "address", "company", "job", "color", "currency", "date_time", "lorem")
GENDERED = {"male": "first_name_male", "female": "first_name_female"}


def words_of(value: str) -> list[str]:
    return [p.text for p in split(value) if p.kind == LETTERS and len(p.text) > 1 and p.text.lower() not in _JOINERS]


class Dictionaries:
    """Faker instances per language, built on first use."""

    def __init__(self, locales: dict[str, str]) -> None:
        self.locales = dict(locales)
        self._fakers: dict[str, object] = {}
        self._pud: PudInventory | None = None  # made on first use
        self._pools: dict[tuple[str, str], list[str]] = {}
        self._member_sets: dict[tuple[str, str], frozenset[str]] = {}

    def faker(self, lang: str):
        if lang not in self._fakers:
            if lang not in self.locales:
                raise WorkbenchError(f"the surrogate table has no Faker locale for language {lang!r} "
                                     f"(it has: {', '.join(sorted(self.locales))})")
            from faker import Faker
            try:
                self._fakers[lang] = Faker(self.locales[lang])
            except AttributeError:
                raise WorkbenchError(f"Faker has no locale {self.locales[lang]!r} (language {lang!r})") from None
        return self._fakers[lang]

    def check(self, lang: str, source: str) -> None:
        """Refuse a dictionary this language cannot draw from, before anything is generated."""
        if not self.pool(lang, source):
            raise WorkbenchError(f"dictionary {source!r} gives no words for language {lang!r} "
                                 f"(locale {self.locales.get(lang)})")

    def draw(self, lang: str, source: str, rng: random.Random) -> str:
        if source.startswith(PUD):
            return rng.choice(self.pool(lang, source))
        fake = self.faker(lang)
        fake.seed_instance(rng.getrandbits(64))
        words = words_of(str(getattr(fake, source)()))
        if not words:
            return rng.choice(self.pool(lang, source))
        # The longest word of a value: the name in "Gonzales PLC" and "Johansson AB", the
        # place in "Lake Farleytown", not the suffix or prefix around it.
        longest = max(len(w) for w in words)
        return rng.choice([w for w in words if len(w) == longest])

    def holds(self, lang: str, source: str, word: str) -> bool:
        return word.casefold() in self._members(lang, source)

    def gender(self, lang: str, first_name: str) -> str | None:
        """"male" or "female" when the locale's gendered first-name lists hold the name in one
        of them only; None when in both ("Kim"), in neither, or the locale has no such lists."""
        found = [g for g, source in GENDERED.items() if first_name.casefold() in self._listed(lang, source)]
        return found[0] if len(found) == 1 else None

    # --- pools ---------------------------------------------------------------------------

    def pool(self, lang: str, source: str) -> list[str]:
        """The dictionary's words in a stable order (for checks and pud draws): a PUD list, or
        the words of _SAMPLE draws of the Faker method with a fixed seed."""
        key = (lang, source)
        if key not in self._pools:
            if source.startswith(PUD):
                self._pools[key] = self._pud_forms(lang, source[len(PUD):])
            else:
                method = self._word_method(lang, source)
                self.faker(lang).seed_instance(0)
                self._pools[key] = sorted({w for _ in range(_SAMPLE) for w in words_of(method())})
        return self._pools[key]

    def _word_method(self, lang: str, source: str):
        """The Faker method `source` names, if it is a word dictionary (WORD_PROVIDERS) that gives
        text; a WorkbenchError that says why not otherwise, before it is ever called in a draw."""
        fake = self.faker(lang)
        locale = self.locales[lang]
        owner = None
        if source.isidentifier() and not source.startswith("_"):
            owner = next((cls for provider in fake.get_providers() for cls in type(provider).__mro__
                          if source in vars(cls)), None)
        if owner is None:
            raise WorkbenchError(f"Faker ({locale}) has no dictionary {source!r}")
        family = owner.__module__.split(".")[2] if owner.__module__.count(".") >= 2 else "base"
        if family not in WORD_PROVIDERS:
            raise WorkbenchError(f"Faker ({locale}) {source!r} is not a word dictionary (a method of its {family} "
                                 f"provider): a dictionary is a method of Faker's {', '.join(WORD_PROVIDERS)} "
                                 "providers that gives text, e.g. 'city'")
        method = getattr(fake, source)
        fake.seed_instance(0)
        value = method()
        if not isinstance(value, str):
            raise WorkbenchError(f"Faker ({locale}) {source!r} gives a {type(value).__name__}, not text: not a word "
                                 "dictionary")
        return method

    def _members(self, lang: str, source: str) -> frozenset[str]:
        key = (lang, source)
        if key not in self._member_sets:
            sampled = frozenset(w.casefold() for w in self.pool(lang, source))
            self._member_sets[key] = sampled | self._listed(lang, source)
        return self._member_sets[key]

    def _listed(self, lang: str, source: str) -> frozenset[str]:
        """The words of the provider's own list behind `source`, casefolded; empty if none."""
        out: set[str] = set()
        for provider in self.faker(lang).get_providers():
            for attribute in _LISTS.get(source, ()):
                values = getattr(provider, attribute, None)
                if values is not None and all(isinstance(v, str) for v in values):
                    out.update(w.casefold() for v in values for w in words_of(v))
        return frozenset(out)

    def _pud_forms(self, lang: str, upos: str) -> list[str]:
        if self._pud is None:
            from workbench.text.pud_vocabulary import PudInventory
            self._pud = PudInventory()
        return [f for f in self._pud.forms(lang, upos) if f.isalpha() and len(f) > 1]

