"""What every re-identification attacker is, and its attack key; no implementation here.

An attacker holds a background file (workbench.privacy.reid_attacks.background) and scores every
individual in it for a text; its settings (a frozen config dataclass), the share of each
background text it knows (where not all) and the background's hash make its attack key,
under which reid_results are stored and found again. The implementations
(workbench/privacy/reid_attacks/retrieval.py, trained.py) are named by the registry in
workbench/privacy/reid_attacks/attackers.py.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from workbench.privacy.reid_attacks.background import Background

if TYPE_CHECKING:
    import numpy

DEFAULT_K = 10  # rank ≤ k: a document counts as re-identified within the attacker's k best (001)


class Attacker(Protocol):
    """What reid_risk needs of an attacker: its settings (for the key) and scores per individual.

    Built as `cls(background, config, log=log)` by workbench.privacy.reid_attacks.attackers.make_attacker, where
    `Config` is its frozen config dataclass (the plug-in kit builds it from -o options). A config
    with settings that follow the attacked documents' language (BM25's stop words) resolves them in
    `resolved(lang)`, which make_attacker calls before the attacker is built."""
    # Its config dataclass, a class attribute (not ClassVar here: implementations assign it plainly).
    Config: type[Any]
    name: str
    background: Background

    def __init__(self, background: Background, config, log: Callable[[str], None] | None = None) -> None: ...

    def describe(self) -> dict:
        """JSON-able settings that, with the background's hash, determine the scores."""

    def scores(self, texts: Sequence[str]) -> numpy.ndarray:
        """(len(texts), len(background.individuals)); higher = more likely that individual."""


def attack_settings(attacker: Attacker) -> dict:
    """The attacker's settings and, for a weaker attacker (TAE), the share of each background text
    it knows; at the whole text, describe() alone, so the keys of existing attacks never change."""
    return {**attacker.describe(), **attacker.background.share_setting()}


def attack_key(attacker: Attacker) -> str:
    payload = json.dumps({"attacker": attacker.name, "config": attack_settings(attacker),
                          "background": attacker.background.sha256}, sort_keys=True)
    return f"{attacker.name}-{hashlib.sha256(payload.encode()).hexdigest()[:12]}"
