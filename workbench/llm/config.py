"""Options of the Ollama generator, as a frozen dataclass the CLI fills (`--model`, `-o name=value`).

Every field has a non-None default of its own type: registry.build_config converts the
CLI's strings by that type.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from workbench.errors import WorkbenchError

DEFAULT_MODEL = "qwen2.5:1.5b-instruct"  # the model of 003 §3.2, as Ollama names it
DEFAULT_HOST = "http://127.0.0.1:11434"  # Ollama's own default address


@dataclass(frozen=True, slots=True)
class OllamaConfig:
    model: str = DEFAULT_MODEL
    host: str = DEFAULT_HOST
    # The texts hold personal data: a host that is not this machine is refused unless set.
    allow_remote: bool = False
    temperature: float = 0.8  # Ollama's own default; retries draw with another seed
    seed: int = -1  # -1: GenerationOptions.seed; each request's seed is derived from it
    attempts: int = 3  # requests per window before its spans are FAILED (003 §4 "several attempts")
    timeout: float = 120.0  # seconds per request, in all; the client's own default is to wait forever
    num_ctx: int = 4096  # tokens of context the server allocates (Ollama's default is 2048 or 4096)
    # Answer budget: num_predict = 16 + tokens_per_mask × masks; a runaway answer ends cut off
    # (invalid JSON, so retried) instead of running for minutes.
    tokens_per_mask: int = 32
    max_chars: int = 100  # longest pseudonym the JSON schema allows (maxLength)
    backoff: float = 1.0  # seconds before the first retry after a connection failure; doubles
    # After this many requests in a row fail to reach the server (refused, timed out, cut),
    # the remaining windows are FAILED without asking: a dead server costs seconds, not hours.
    # 0: never give up.
    give_up_after: int = 6
    # Requests kept in flight at once (maskL: windows; repL: the k-th slots of many documents).
    # Each request carries its own seed and answers come back in slot order, so the output is
    # that of parallel=1: not in the run signature, and a run resumes at another value. Pays
    # off when the server answers several at once (Ollama: OLLAMA_NUM_PARALLEL).
    parallel: int = field(default=1, metadata={"signature": False})

    def __post_init__(self) -> None:
        from workbench.llm.guard import check_host
        check_host(self.host, self.allow_remote)  # fail at construction, before anything is sent
        if not self.model.strip():
            raise WorkbenchError("ollama: the model name is empty")
        problems = []
        if self.attempts < 1:
            problems.append("attempts must be >= 1")
        if not self.timeout > 0:
            problems.append("timeout must be > 0 seconds (a server that never answers must not hang a run)")
        if self.num_ctx < 256:
            problems.append("num_ctx must be >= 256 tokens")
        if self.tokens_per_mask < 4 or self.max_chars < 1:
            problems.append("tokens_per_mask must be >= 4 and max_chars >= 1")
        if not 0.0 <= self.temperature <= 2.0:
            problems.append("temperature must be within 0..2")
        if self.backoff < 0 or self.give_up_after < 0:
            problems.append("backoff and give_up_after must be >= 0")
        if isinstance(self.parallel, bool) or not isinstance(self.parallel, int) or self.parallel < 1:
            problems.append(f"parallel must be an integer >= 1 (requests in flight at once), not {self.parallel!r}")
        if problems:
            raise WorkbenchError("ollama options: " + "; ".join(problems))
