"""The surrogate table: label -> how its spans get surrogates, read from TOML (table.toml ships).

    table = load_table()                  # the shipped table
    table = load_table(Path("mine.toml")) # the shipped table with the user's entries over it
    table.rule("PERSON")                  # LabelRule(kind="words", dictionaries=(...), default=...)

A bad file stops with a WorkbenchError that names it and the entry at fault; nothing else
reads a table, so every check lives here.
"""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from workbench.infra.errors import WorkbenchError

SHIPPED = Path(__file__).with_name("table.toml")
WORDS, DATE, NUMBER, SHAPE = "words", "date", "number", "shape"
KINDS = (WORDS, DATE, NUMBER, SHAPE)
_SECTIONS = ("locales", "labels", "fallback", "keep")
_RULE_KEYS = ("kind", "dictionaries", "default")


@dataclass(frozen=True, slots=True)
class LabelRule:
    kind: str
    dictionaries: tuple[str, ...] = ()
    default: str | None = None  # for words: the dictionary of a word no dictionary holds

    @property
    def default_dictionary(self) -> str | None:
        return self.default or (self.dictionaries[0] if self.dictionaries else None)


@dataclass(frozen=True)
class SurrogateTable:
    files: tuple[str, ...]  # the files read, shipped first
    digest: str  # of their contents: part of the run signature's model id
    locales: dict[str, str] = field(default_factory=dict)  # language -> Faker locale
    labels: dict[str, LabelRule] = field(default_factory=dict)  # casefolded label -> rule
    fallback: LabelRule = LabelRule(WORDS, ("pud:NOUN",))
    keep: dict[str, frozenset[str]] = field(default_factory=dict)  # language -> casefolded words
    spellings: dict[str, str] = field(default_factory=dict)  # casefolded label -> as the table writes it

    # Holds dicts. typeshed types object.__hash__ as a method, not the data model's None.
    __hash__ = None  # type: ignore[assignment]

    def labels_of_kind(self, kind: str) -> list[str]:
        """The labels of one kind, as the table writes them (the generator declares its levels by them)."""
        return sorted(self.spellings[key] for key, rule in self.labels.items() if rule.kind == kind)

    def rule(self, label: str) -> LabelRule:
        return self.labels.get(label.casefold(), self.fallback)

    def keeps(self, lang: str, word: str) -> bool:
        return word.casefold() in self.keep.get(lang, frozenset())

    def all_dictionaries(self) -> set[str]:
        """Every dictionary the table names (checked for each language when the generator loads)."""
        rules = [*self.labels.values(), self.fallback]
        return {d for r in rules if r.kind == WORDS for d in r.dictionaries}


def load_table(path: Path | str | None = None) -> SurrogateTable:
    """The shipped table, with the entries of the user's table at `path` over it."""
    files = [SHIPPED] + ([Path(path)] if path else [])
    tables = [_read(f) for f in files]
    locales: dict[str, str] = {}
    labels: dict[str, LabelRule] = {}
    keep: dict[str, frozenset[str]] = {}
    spellings: dict[str, str] = {}
    fallback = None
    for f, data in zip(files, tables):
        locales.update(_locales(f, data.get("locales", {})))
        for label, entry in _table(f, "labels", data.get("labels", {})).items():
            labels[label.casefold()] = _rule(f, f"labels.{label}", entry)
            spellings[label.casefold()] = label
        keep.update(_keep(f, data.get("keep", {})))
        if "fallback" in data:
            fallback = _rule(f, "fallback", data["fallback"])
    digest = hashlib.sha256(b"\0".join(f.read_bytes() for f in files)).hexdigest()[:12]
    return SurrogateTable(tuple(str(f) for f in files), digest, locales, labels,
                          fallback or LabelRule(WORDS, ("pud:NOUN",)), keep, spellings)


def _read(path: Path) -> dict:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise WorkbenchError(f"surrogate table {path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise WorkbenchError(f"surrogate table {path}: cannot read it ({exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise WorkbenchError(f"surrogate table {path}: not valid TOML ({exc})") from None
    unknown = sorted(set(data) - set(_SECTIONS))
    if unknown:
        raise WorkbenchError(f"surrogate table {path}: unknown section {unknown[0]!r} "
                             f"(sections: {', '.join(_SECTIONS)})")
    return data


def _table(path: Path, name: str, value) -> dict:
    if not isinstance(value, dict):
        raise WorkbenchError(f"surrogate table {path}: [{name}] must be a table, not {value!r}")
    return value


def _locales(path: Path, value) -> dict[str, str]:
    for lang, locale in _table(path, "locales", value).items():
        if not isinstance(locale, str) or not locale:
            raise WorkbenchError(f"surrogate table {path}: locales.{lang} must be a Faker locale name, not {locale!r}")
    return dict(value)


def _keep(path: Path, value) -> dict[str, frozenset[str]]:
    out = {}
    for lang, words in _table(path, "keep", value).items():
        if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
            raise WorkbenchError(f"surrogate table {path}: keep.{lang} must be a list of words")
        out[lang] = frozenset(w.casefold() for w in words)
    return out


def _rule(path: Path, name: str, entry) -> LabelRule:
    where = f"surrogate table {path}: {name}"
    entry = _table(path, name, entry)
    unknown = sorted(set(entry) - set(_RULE_KEYS))
    if unknown:
        raise WorkbenchError(f"{where}: unknown key {unknown[0]!r} (keys: {', '.join(_RULE_KEYS)})")
    kind = entry.get("kind")
    if kind not in KINDS:
        raise WorkbenchError(f"{where}: kind must be one of {', '.join(KINDS)}, not {kind!r}")
    dictionaries = entry.get("dictionaries", [])
    default = entry.get("default")
    if kind != WORDS:
        if dictionaries or default:
            raise WorkbenchError(f"{where}: dictionaries and default apply to kind \"words\" only")
        return LabelRule(kind)
    if not dictionaries or not isinstance(dictionaries, list) or not all(
            isinstance(d, str) and d for d in dictionaries):
        raise WorkbenchError(f"{where}: kind \"words\" needs dictionaries = [\"faker_method\", …]")
    if default is not None and default not in dictionaries:
        raise WorkbenchError(f"{where}: default {default!r} is not one of its dictionaries")
    return LabelRule(kind, tuple(dictionaries), default)
