"""The attackers of re-identification risk behind one interface, by name (no heavy imports here).

An attacker holds a background file (workbench.privacy.background) and scores every
individual in it for a text; its settings (a frozen config dataclass) and the background's
hash make its attack key, under which reid_results are stored and found again.
    retrieval  BM25 over the background texts (workbench.privacy.retrieval)
    trained    the TRI classifier trained on them (workbench.privacy.trained)
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import fields
from typing import Callable, Mapping, Protocol, Sequence

from workbench.errors import InvalidValue, WorkbenchError
from workbench.privacy.background import Background

ATTACKERS = ("retrieval", "trained")
DEFAULT_K = 10


class Attacker(Protocol):
    """What reid_risk needs of an attacker: its settings (for the key) and scores per individual."""
    name: str
    background: Background

    def describe(self) -> dict:
        """JSON-able settings that, with the background's hash, determine the scores."""

    def scores(self, texts: Sequence[str]) -> "numpy.ndarray":
        """(len(texts), len(background.individuals)); higher = more likely that individual."""


def make_attacker(name: str, background: Background, options: Mapping[str, object] | None = None,
                  lang: str = "en", *, log: Callable[[str], None] | None = None) -> Attacker:
    """An attacker by name, configured from `options` (values may be strings, as typed after -o)."""
    options = dict(options or {})
    if name == "retrieval":
        from workbench.privacy.retrieval import RetrievalAttacker, RetrievalConfig
        return RetrievalAttacker(background, config_from(RetrievalConfig, options).resolved(lang))
    if name == "trained":
        from workbench.privacy.trained import TrainedAttacker, TrainedConfig
        return TrainedAttacker(background, config_from(TrainedConfig, options), log=log)
    raise WorkbenchError(f"unknown attacker {name!r} (known: {', '.join(ATTACKERS)})")


def config_from(cls, options: Mapping[str, object]):
    """A frozen config dataclass from name -> value, converting strings to each field's type."""
    known = {f.name: f for f in fields(cls)}
    values = {}
    for name, value in options.items():
        if name not in known:
            raise InvalidValue(f"unknown option {name!r} for this attacker (known: {', '.join(known)})")
        default = known[name].default
        values[name] = _convert(name, value, type(default))
    return cls(**values)


def _convert(name: str, value: object, kind: type):
    if not isinstance(value, str) or kind is str:
        return value
    try:
        if kind is bool:
            lowered = value.strip().lower()
            if lowered not in ("true", "false", "1", "0", "yes", "no", "on", "off"):
                raise ValueError(value)
            return lowered in ("true", "1", "yes", "on")
        return kind(value)
    except ValueError:
        raise InvalidValue(f"option {name}={value!r} is not a {kind.__name__}") from None


def attack_key(attacker: Attacker) -> str:
    payload = json.dumps({"attacker": attacker.name, "config": attacker.describe(),
                          "background": attacker.background.sha256}, sort_keys=True)
    return f"{attacker.name}-{hashlib.sha256(payload.encode()).hexdigest()[:12]}"
