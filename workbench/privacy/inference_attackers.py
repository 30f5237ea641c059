"""Inference attackers behind one interface (004 §3.2 "Inference attack"), by name; no heavy imports here.

An attacker reads a pseudonymised document and proposes N guesses of what one replaced
span originally said. It is handed a `Target`: the document as it was published (every
span carrying its replacement) and where the target's replacement stands in it; a Target
cannot carry the original, so an attacker never sees it (tests/privacy prove it).

    mlm     a masked LM over the pseudonymised context: the target's replacement becomes one
            mask, every other span keeps its replacement, and the N best whole words are the
            guesses (workbench.privacy.inference_mlm; no server). Users' default models are
            the fill-mask generator's (RoBERTa-large EN, AI-Sweden RoBERTa-large SV); `offline`
            is the small test MLM.
    ollama  the instruction LLM through the workbench's Ollama client, asked with 004's guessing
            prompt (Table 4) to guess back the [[bracketed]] span
            (workbench.privacy.inference_llm). Users' default: qwen2.5:1.5b-instruct.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from typing import Mapping, Protocol, Sequence

from workbench.devices import check_device, check_dtype
from workbench.errors import InvalidValue, WorkbenchError

INFERENCE_ATTACKERS = ("mlm", "ollama")
DEFAULT_GUESSES = 5  # 004 §5.2: five guesses


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
    name: str
    n: int

    def describe(self) -> dict:
        """JSON-able settings that determine the guesses (part of the attack key)."""

    def load(self, langs: Sequence[str]) -> None:
        """Everything heavy, for these languages, before anything is stored."""

    def guess(self, targets: Sequence[Target]) -> list[Guesses]:
        """N guesses per target, in the same order."""


@dataclass(frozen=True, slots=True)
class MlmAttackConfig:
    model: str = ""  # one model for every language (hub id, directory, `offline`); "": per language
    model_en: str = "FacebookAI/roberta-large"  # the fill-mask generator's defaults (003 §3.2)
    model_sv: str = "AI-Sweden-Models/roberta-large-1160k"
    context_chars: int = 1500  # characters of the document kept each side of the target
    max_tokens: int = 0  # crop around the mask to this many tokens; 0: the model's own limit
    batch_size: int = 32  # targets per forward pass
    # Where and in which number format the model runs (workbench.devices); the attack key records
    # the resolved dtype when it is not float32 (MlmAttacker.describe).
    device: str = "auto"
    dtype: str = "auto"

    def __post_init__(self) -> None:
        if self.context_chars < 0 or self.max_tokens < 0 or self.batch_size < 1:
            raise InvalidValue("mlm attacker: context_chars and max_tokens must be >= 0, batch_size >= 1")
        check_device(self.device)
        check_dtype(self.dtype)

    def model_for(self, lang: str) -> str:
        return self.model or {"en": self.model_en, "sv": self.model_sv}.get(lang) or self.model_en


@dataclass(frozen=True, slots=True)
class LlmAttackConfig:
    """The Ollama client's settings (workbench.llm.config.OllamaConfig) plus the attack's own."""
    model: str = "qwen2.5:1.5b-instruct"  # the users' default (003 §3.2; 004 used Mistral-7B)
    host: str = "http://127.0.0.1:11434"
    allow_remote: bool = False  # the documents hold personal data: loopback only unless set
    temperature: float = 0.3  # 004 §5.2's sampling temperature
    seed: int = 0  # base seed; each request's seed is derived from it and the span
    attempts: int = 3
    timeout: float = 120.0
    num_ctx: int = 4096
    tokens_per_guess: int = 32  # answer budget: num_predict = 16 + tokens_per_guess × N
    max_chars: int = 100  # longest guess the JSON schema allows
    backoff: float = 1.0
    give_up_after: int = 6
    context_chars: int = 6000  # of the pseudonymised document around the target (004: the whole
    # document; 6,000 characters keep prompt and answer inside num_ctx 4096)
    parallel: int = 1  # requests in flight at once (workbench.llm.in_flight); not in the attack key

    def __post_init__(self) -> None:
        if self.context_chars < 200:
            raise InvalidValue("ollama attacker: context_chars must be >= 200")
        self.client_config()  # the client's own checks (loopback guard, ranges) fail here

    def client_config(self):
        from workbench.llm.config import OllamaConfig
        return OllamaConfig(model=self.model, host=self.host, allow_remote=self.allow_remote,
                            temperature=self.temperature, seed=self.seed, attempts=self.attempts,
                            timeout=self.timeout, num_ctx=self.num_ctx, tokens_per_mask=self.tokens_per_guess,
                            max_chars=self.max_chars, backoff=self.backoff, give_up_after=self.give_up_after,
                            parallel=self.parallel)


CONFIGS = {"mlm": MlmAttackConfig, "ollama": LlmAttackConfig}
# Settings that change how fast, never what is guessed: left out of the attack key.
_NOT_IN_KEY = {"batch_size", "device", "dtype", "timeout", "backoff", "give_up_after", "attempts", "host",
               "allow_remote", "parallel"}


def make_inference_attacker(name: str, n: int = DEFAULT_GUESSES,
                            options: Mapping[str, object] | None = None) -> InferenceAttacker:
    """An attacker by name, configured from `options` (values may be strings, as typed after -o)."""
    from workbench.privacy.attackers import config_from
    if name not in CONFIGS:
        raise WorkbenchError(f"unknown inference attacker {name!r} (known: {', '.join(INFERENCE_ATTACKERS)})")
    if not 1 <= n <= 50:
        raise InvalidValue(f"the number of guesses must be within 1..50, not {n}")
    config = config_from(CONFIGS[name], dict(options or {}))
    if name == "mlm":
        from workbench.privacy.inference_mlm import MlmAttacker
        return MlmAttacker(config, n)
    from workbench.privacy.inference_llm import LlmAttacker
    return LlmAttacker(config, n)


def describe_config(config) -> dict:
    return {k: v for k, v in asdict(config).items() if k not in _NOT_IN_KEY}


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
