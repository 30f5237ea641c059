"""The Ollama client's settings, once (OllamaSettings), and the ollama generator's config.

Every config that talks to Ollama holds one OllamaSettings as its `client` field: the ollama
generator (OllamaConfig here), INTACT (adapters/intact/config.py) and the LLM inference attacker
(workbench/privacy/inference_attacks/inference_llm.py), each with its own defaults (a different temperature, a
larger answer budget). On the command line the client's settings keep their plain names:
`-o temperature=0.2` sets `client.temperature` (workbench.infra.plugins.build_config routes a name
that is not the config's own into its nested record; `-o client.temperature=0.2` says the same).

A run id and an attack key hash the settings as they were before they were nested: one flat
dict, the answer budget under the name each owner gave it (`tokens_per_mask`, `tokens_per_answer`,
`tokens_per_guess`). flat_settings() writes exactly that dict, so stored runs stay found.

Where the server is (`host`, and `allow_remote`, the opt-in to a host off this machine) says
where the model runs, not what it answers: a run's signature hashes them as constants, the
defaults (signature_settings; SERVER_FIELDS), so the same run resumes at another address, and a
run made at the default address keeps the id it always had. The address used is recorded with
the run (RunRecord.servers), not hashed. A run stored before issue 37 hashed its own address;
without_server() maps its stored config as today's hash would read it, which is how the engine
finds it again from any address (workbench.generation.earlier_runs).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from workbench.infra.errors import WorkbenchError
from workbench.llm.guard import OLLAMA_PORT

DEFAULT_MODEL = "qwen2.5:1.5b-instruct"  # the model of 003 §3.2, as Ollama names it
DEFAULT_HOST = f"http://127.0.0.1:{OLLAMA_PORT}"  # Ollama's own default address


@dataclass(frozen=True, slots=True)
class OllamaSettings:
    """How to reach the Ollama server and ask it: what workbench.llm.client.OllamaClient reads."""
    model: str = DEFAULT_MODEL
    host: str = DEFAULT_HOST
    # The texts hold personal data: a host that is not this machine is refused unless set.
    allow_remote: bool = False
    temperature: float = 0.8  # Ollama's own default; retries draw with another seed
    seed: int = -1  # -1: the run's seed (GenerationOptions.seed); each request's seed is derived from it
    attempts: int = 3  # requests before a window, span or guess is FAILED (003 §4 "several attempts")
    timeout: float = 120.0  # seconds per request, in all; the client's own default is to wait forever
    num_ctx: int = 4096  # tokens of context the server allocates (Ollama's default is 2048 or 4096)
    # Answer budget: num_predict = 16 + tokens_per_answer × values asked for (masks, candidates,
    # guesses); a runaway answer ends cut off (invalid JSON, so retried) instead of running for minutes.
    tokens_per_answer: int = 32
    max_chars: int = 100  # longest value the JSON schema allows (maxLength)
    backoff: float = 1.0  # seconds before the first retry after a connection failure; doubles
    # After this many requests in a row fail to reach the server (refused, timed out, cut),
    # the rest is FAILED without asking: a dead server costs seconds, not hours. 0: never give up.
    give_up_after: int = 6
    # Requests kept in flight at once (workbench.llm.in_flight). Each request carries its own seed
    # and answers are used in order, so the output is that of parallel=1: not in the run signature
    # or attack key, and a run resumes at another value. Pays off when the server answers several
    # at once (Ollama: OLLAMA_NUM_PARALLEL).
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
        if self.tokens_per_answer < 4 or self.max_chars < 1:
            problems.append("tokens_per_answer must be >= 4 and max_chars >= 1")
        if not 0.0 <= self.temperature <= 2.0:
            problems.append("temperature must be within 0..2")
        if self.backoff < 0 or self.give_up_after < 0:
            problems.append("backoff and give_up_after must be >= 0")
        if isinstance(self.parallel, bool) or not isinstance(self.parallel, int) or self.parallel < 1:
            problems.append(f"parallel must be an integer >= 1 (requests in flight at once), not {self.parallel!r}")
        if problems:
            raise WorkbenchError("ollama options: " + "; ".join(problems))


@dataclass(frozen=True, slots=True)
class OllamaConfig:
    """The ollama generator's options (`--model`, `-o name=value`): the client's settings only."""
    client: OllamaSettings = OllamaSettings()
    # The name the generator's run signatures (and older commands) give the answer budget.
    LEGACY_NAMES: ClassVar[Mapping[str, str]] = {"tokens_per_answer": "tokens_per_mask"}


# The settings that say where the server is, with the constant a run signature hashes for each.
SERVER_FIELDS: Mapping[str, object] = {"host": DEFAULT_HOST, "allow_remote": False}


def without_server(settings: Mapping[str, object]) -> dict:
    """A flat settings dict with its server fields (those it has) set to SERVER_FIELDS' constants."""
    return {k: SERVER_FIELDS.get(k, v) for k, v in settings.items()}


def signature_settings(config) -> dict:
    """The flat dict a run signature hashes (flat_settings), the server's address as a constant."""
    return without_server(flat_settings(config))


def flat_settings(config, *, signature_only: bool = True) -> dict:
    """The config as one flat dict, the nested `client`'s fields in place of `client`, each under
    the name the config's LEGACY_NAMES gives it: the dict run signatures and attack keys hashed
    before the client's settings were nested. Fields declared `metadata={"signature": False}`
    are left out unless `signature_only` is False."""
    out = {}
    renamed = getattr(type(config), "LEGACY_NAMES", {})
    for name, value in _fields(config, signature_only):
        if dataclasses.is_dataclass(value):
            for sub, sub_value in _fields(value, signature_only):
                out[renamed.get(sub, sub)] = sub_value
        else:
            out[renamed.get(name, name)] = value
    return out


def _fields(config, signature_only: bool):
    for f in dataclasses.fields(config):
        if f.metadata.get("signature", True) or not signature_only:
            yield f.name, getattr(config, f.name)
