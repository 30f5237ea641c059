"""What every inference attacker is and hands back (004 §3.2 "Inference attack"); no implementation here.

An attacker reads a pseudonymised document and proposes N guesses of what one replaced
span originally said. It is handed a `Target`: the document as it was published (every
span carrying its replacement) and where the target's replacement stands in it; a Target
cannot carry the original, so an attacker never sees it (tests/privacy prove it).

The implementations (workbench/privacy/inference_attacks/inference_mlm.py, inference_llm.py) import this module;
the registry (workbench/privacy/inference_attacks/inference_attackers.py) names them, so nothing here imports
them back.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from workbench.llm.config import flat_settings

DEFAULT_GUESSES = 5  # 004 §5.2: five guesses

# Settings that change how fast, never what is guessed: left out of the attack key.
NOT_IN_KEY = frozenset({"batch_size", "device", "dtype", "timeout", "backoff", "give_up_after", "attempts", "host",
                        "allow_remote", "parallel"})


@dataclass(frozen=True, slots=True)
class Target:
    """One replaced span as an attacker may see it: no original text, by construction."""
    key: str  # run|doc|span, stable: seeds the LLM's requests
    lang: str
    label: str
    text: str  # the pseudonymised document
    start: int  # the replacement's offsets in `text` (start == end: suppressed)
    end: int

    @property
    def replacement(self) -> str:
        return self.text[self.start:self.end]


@dataclass(frozen=True, slots=True)
class Guesses:
    guesses: tuple[str, ...]  # best first, at most N, no duplicates
    note: str = ""  # why there are none (an LLM that gave no usable answer); "" when answered
    requests: int = 0


class InferenceAttacker(Protocol):
    """Built as `cls(config, n)` by workbench.privacy.inference_attacks.inference_attackers.make_inference_attacker;
    `Config` is its frozen config dataclass, which the plug-in kit builds from -o options."""
    # Its config dataclass, a class attribute (not ClassVar here: implementations assign it plainly).
    Config: type[Any]
    name: str
    model_kind: str  # what kind of model guesses, as tables and notes name it ("MLM", "LLM")
    n: int

    def __init__(self, config, n: int) -> None: ...

    def describe(self) -> dict:
        """JSON-able settings that determine the guesses (part of the attack key)."""

    def load(self, langs: Sequence[str]) -> None:
        """Everything heavy, for these languages, before anything is stored."""

    def guess(self, targets: Sequence[Target]) -> list[Guesses]:
        """N guesses per target, in the same order."""


def describe_config(config) -> dict:
    """The config's settings for the attack key: one flat dict (the Ollama client's settings in
    place of `client`, under the config's LEGACY_NAMES), those that only change the speed left out."""
    return {k: v for k, v in flat_settings(config, signature_only=False).items() if k not in NOT_IN_KEY}


def attack_key(attacker: InferenceAttacker, matcher: Mapping[str, object]) -> str:
    """`<attacker>-<model>-n<N>-<8 hex>`: the hash covers the settings and the matching function."""
    settings = attacker.describe()
    payload = json.dumps({"attacker": attacker.name, "n": attacker.n, "config": settings, "matcher": matcher},
                         sort_keys=True)
    model = settings.get("model") or "default"
    slug = "".join(c if c.isalnum() or c in "._-" else "_" for c in str(model))[-40:]
    return f"{attacker.name}-{slug}-n{attacker.n}-{hashlib.sha256(payload.encode()).hexdigest()[:8]}"


def clean_guesses(values: Sequence[object], n: int) -> tuple[str, ...]:
    """Text guesses, white space collapsed, empty and repeated ones (case-insensitive) left out, at most n."""
    out, seen = [], set()
    for value in values:
        if value is None or isinstance(value, bool) or not isinstance(value, (str, int, float)):
            continue
        text = " ".join(str(value).split())
        if text and text.lower() not in seen:
            seen.add(text.lower())
            out.append(text)
    return tuple(out[:n])
