"""Options of the INTACT generator (`-g intact`, `--model`, `-o name=value`), a frozen dataclass.

Every field has a non-None default of its own type: registry.build_config converts the CLI's
strings by that type. The Ollama settings are those of the ollama generator
(workbench.llm.config.OllamaConfig); the attacker's default is the LLM inference attacker
through the same server and model (004 §5.2 uses one model for both steps).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from workbench.errors import InvalidValue
from workbench.llm.config import DEFAULT_HOST, DEFAULT_MODEL, OllamaConfig
from workbench.privacy.inference_attackers import INFERENCE_ATTACKERS


@dataclass(frozen=True, slots=True)
class IntactConfig:
    model: str = DEFAULT_MODEL  # users' default (003's Qwen2.5-1.5B-Instruct); 004 used Mistral-7B-Instruct
    host: str = DEFAULT_HOST
    allow_remote: bool = False  # the texts hold personal data: loopback only unless set
    temperature: float = 0.3  # 004 §5.2: multinomial sampling at 0.3
    seed: int = -1  # -1: the run's --seed; each request's seed is derived from it and the span
    attempts: int = 3
    timeout: float = 120.0  # seconds per request, in all
    num_ctx: int = 4096
    backoff: float = 1.0
    give_up_after: int = 6  # failed requests in a row before the rest of the run is FAILED unasked
    candidates: int = 5  # 004 §5.2: five replacements per span
    guesses: int = 5  # 004 §5.2: five guesses per attack
    # Answer budget per candidate or guess: num_predict = 16 + 64 × 5. Enough for five values of
    # max_chars (100) characters at two characters per token; at 32 (the ollama generator's), 2 of
    # 8 Swedish attacks in the stand-in run were cut off mid-string (invalid JSON, so FAILED).
    tokens_per_answer: int = 64
    max_chars: int = 100  # longest candidate or guess the JSON schema allows
    attacker: str = "ollama"  # an inference attacker by name (workbench.privacy.inference_attackers)
    attacker_model: str = ""  # "": the ollama attacker uses `model`; the mlm attacker its defaults
    context_chars: int = 6000  # of the sanitised window around the span the LLM attacker reads
    # A corpus (shipped name or file) whose 100 most frequent lemmas 004's matching function
    # leaves out; "" leaves none out (the generator sees slots, not the corpus).
    frequent_from: str = ""
    # Spans decided at once (each decision's own requests stay one after the other): a span's
    # decision depends only on its slot, so the output is that of parallel=1, and this is left
    # out of the run signature (a run resumes at another value). See the ollama generator's.
    parallel: int = field(default=1, metadata={"signature": False})

    def __post_init__(self) -> None:
        self.client_config()  # the Ollama client's own checks (loopback guard, ranges) fail here
        if self.attacker not in INFERENCE_ATTACKERS:
            raise InvalidValue(f"intact: attacker must be one of {', '.join(INFERENCE_ATTACKERS)}, "
                               f"not {self.attacker!r}")
        if not 1 <= self.candidates <= 20 or not 1 <= self.guesses <= 50:
            raise InvalidValue("intact: candidates must be within 1..20 and guesses within 1..50")
        if self.context_chars < 200:
            raise InvalidValue("intact: context_chars must be >= 200")

    def client_config(self) -> OllamaConfig:
        return OllamaConfig(model=self.model, host=self.host, allow_remote=self.allow_remote,
                            temperature=self.temperature, seed=self.seed, attempts=self.attempts,
                            timeout=self.timeout, num_ctx=self.num_ctx, tokens_per_mask=self.tokens_per_answer,
                            max_chars=self.max_chars, backoff=self.backoff, give_up_after=self.give_up_after,
                            parallel=self.parallel)

    def attacker_options(self, run_seed: int) -> dict[str, object]:
        """Settings for make_inference_attacker(self.attacker, self.guesses, …)."""
        if self.attacker == "mlm":
            return {"model": self.attacker_model} if self.attacker_model else {}
        return {"model": self.attacker_model or self.model, "host": self.host, "allow_remote": self.allow_remote,
                "temperature": self.temperature, "seed": self.seed if self.seed >= 0 else run_seed,
                "attempts": self.attempts, "timeout": self.timeout, "num_ctx": self.num_ctx,
                "tokens_per_guess": self.tokens_per_answer, "max_chars": self.max_chars, "backoff": self.backoff,
                "give_up_after": self.give_up_after, "context_chars": self.context_chars}
