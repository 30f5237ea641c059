"""Options of the INTACT generator (`-g intact`, `--model`, `-o name=value`), a frozen dataclass.

Every field has a non-None default of its own type: workbench.infra.plugins.build_config converts the
CLI's strings by that type. The Ollama settings are one nested record (workbench.llm.config.
OllamaSettings, set by their plain names: `-o temperature=0.5`) with INTACT's own defaults; the
attacker's default is the LLM inference attacker through the same server and model (004 §5.2
uses one model for both steps).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from workbench.infra.errors import InvalidValue
from workbench.llm.config import OllamaSettings, signature_settings
from workbench.privacy.inference_attacks.inference_attackers import INFERENCE_ATTACKERS

# 004 §5.2: multinomial sampling at 0.3. Answer budget per candidate or guess: num_predict =
# 16 + 64 × 5. Enough for five values of max_chars (100) characters at two characters per token;
# at 32 (the ollama generator's), 2 of 8 Swedish attacks in the stand-in run were cut off
# mid-string (invalid JSON, so FAILED). seed -1: the run's --seed; each request's seed is derived
# from it and the span. `parallel`: spans decided at once (each decision's own requests stay one
# after the other); a span's decision depends only on its slot, so the output is that of parallel=1.
# The model: users' default (003's Qwen2.5-1.5B-Instruct); 004 used Mistral-7B-Instruct.
CLIENT = OllamaSettings(temperature=0.3, tokens_per_answer=64)


@dataclass(frozen=True, slots=True)
class IntactConfig:
    client: OllamaSettings = CLIENT
    candidates: int = 5  # 004 §5.2: five replacements per span
    guesses: int = 5  # 004 §5.2: five guesses per attack
    attacker: str = "ollama"  # an inference attacker by name (workbench.privacy.inference_attacks.inference_attackers)
    attacker_model: str = ""  # "": the ollama attacker uses the client's model; the mlm attacker its defaults
    context_chars: int = 6000  # of the sanitised window around the span the LLM attacker reads
    # A corpus (shipped name or file) whose 100 most frequent lemmas 004's matching function
    # leaves out; "" leaves none out (the generator sees slots, not the corpus).
    frequent_from: str = ""

    def __post_init__(self) -> None:
        if self.attacker not in INFERENCE_ATTACKERS:
            raise InvalidValue(f"intact: attacker must be one of {', '.join(INFERENCE_ATTACKERS)}, "
                               f"not {self.attacker!r}")
        if not 1 <= self.candidates <= 20 or not 1 <= self.guesses <= 50:
            raise InvalidValue("intact: candidates must be within 1..20 and guesses within 1..50")
        if self.context_chars < 200:
            raise InvalidValue("intact: context_chars must be >= 200")

    def signature(self) -> dict:
        """The flat dict INTACT's run signatures hashed before the client's settings were nested, the
        server's address as the default one (workbench.llm.config.signature_settings)."""
        return signature_settings(self)

    def attacker_options(self, run_seed: int) -> dict[str, object]:
        """Settings for make_inference_attacker(self.attacker, self.guesses, …): the LLM attacker asks
        through this run's client settings (its own model if attacker_model is set, the run's seed)."""
        if self.attacker == "mlm":
            return {"model": self.attacker_model} if self.attacker_model else {}
        client = dataclasses.replace(self.client, model=self.attacker_model or self.client.model, parallel=1,
                                     seed=self.client.seed if self.client.seed >= 0 else run_seed)
        return {"client": client, "context_chars": self.context_chars}
