"""Which masked LM reads a language: one home for the choice that the masked-LM generators
(adapters/masked_lm/base.py) and the masked-LM inference attacker (workbench/privacy/inference_attacks/inference_mlm.py)
both make.

The paper's models are the defaults (003 §3.2). A config's `model` sets one model for every
language (a hub id, a local directory, or `offline`, the small test model of each document's
language); left empty, each language gets its own `model_en` / `model_sv`.
"""

from __future__ import annotations

OFFLINE = "offline"  # --model offline: the offline test MLM of each document's language (workbench.mlm.offline)
DEFAULT_EN = "FacebookAI/roberta-large"
DEFAULT_SV = "AI-Sweden-Models/roberta-large-1160k"

__all__ = ["DEFAULT_EN", "DEFAULT_SV", "OFFLINE", "is_offline", "model_for"]


def model_for(model: str | None, model_en: str, model_sv: str, lang: str) -> str:
    """The model a document of `lang` is read with. `model` empty ("" or None: the generators'
    config records None, the attacker's "", and both are part of stored run ids and attack keys)
    means "per language"; a language other than en/sv falls back to the English model."""
    if model:
        return model
    return {"en": model_en, "sv": model_sv}.get(lang) or model_en


def is_offline(ref: str, lang: str) -> bool:
    """Whether `ref` names the offline test model of `lang` (`offline` or `offline-<lang>`)."""
    return ref in (OFFLINE, f"{OFFLINE}-{lang}")
