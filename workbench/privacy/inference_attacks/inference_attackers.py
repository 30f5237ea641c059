"""The inference attackers by name (a plug-in registry, workbench.infra.plugins); no heavy imports here.

    mlm     a masked LM over the pseudonymised context: the target's replacement becomes one
            mask, every other span keeps its replacement, and the N best whole words are the
            guesses (workbench.privacy.inference_attacks.inference_mlm; no server). Users' default models are
            the fill-mask generator's (RoBERTa-large EN, AI-Sweden RoBERTa-large SV); `offline`
            is the small test MLM.
    ollama  the instruction LLM through the workbench's Ollama client, asked with 004's guessing
            prompt (Table 4) to guess back the [[bracketed]] span
            (workbench.privacy.inference_attacks.inference_llm). Users' default: qwen2.5:1.5b-instruct.

What an attacker is and returns (Target, Guesses, the attack key) is in
workbench.privacy.inference_attacks.inference_contract; a new attacker is one module with a class like
inference_mlm.MlmAttacker (its `Config`, built as `cls(config, n)`) and one Entry here.
"""

from __future__ import annotations

from collections.abc import Mapping

from workbench.infra.errors import InvalidValue
from workbench.infra.plugins import Entry, Registry, build_config
from workbench.privacy.inference_attacks.inference_contract import DEFAULT_GUESSES, InferenceAttacker

REGISTRY: Registry[type[InferenceAttacker]] = Registry("inference attacker", [
    Entry("mlm", "workbench.privacy.inference_attacks.inference_mlm:MlmAttacker",
          "a masked LM's best words at the target", "mlm"),
    Entry("ollama", "workbench.privacy.inference_attacks.inference_llm:LlmAttacker",
          "an instruction LLM asked 004's guessing prompt", "llm"),
])
INFERENCE_ATTACKERS = REGISTRY.names()

__all__ = ["DEFAULT_GUESSES", "INFERENCE_ATTACKERS", "REGISTRY", "make_inference_attacker"]


def make_inference_attacker(name: str, n: int = DEFAULT_GUESSES,
                            options: Mapping[str, object] | None = None) -> InferenceAttacker:
    """An attacker by name, configured from `options` (values may be strings, as typed after -o)."""
    cls = REGISTRY.load(name)
    if not 1 <= n <= 50:
        raise InvalidValue(f"the number of guesses must be within 1..50, not {n}")
    return cls(build_config(cls.Config, dict(options or {}), what=f"the {name} inference attacker"), n)
