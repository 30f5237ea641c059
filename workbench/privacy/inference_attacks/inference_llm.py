"""The LLM inference attacker: 004's guessing prompt (Appendix A.2, Table 4) through the Ollama client.

The target's replacement is put in double square brackets inside the pseudonymised
document (`context_chars` around it; 004 gives the whole document) and the model is asked
for N guesses of the original, most likely first, exact dates for date-like spans, with
004's one-shot example. The answer is a JSON object {"guess_1": …, "guess_N": …}: the
workbench's Ollama client sends a JSON schema with those keys as Ollama's `format`, so the
server constrains decoding to it, and it retries, times out and guards the host exactly as
for the ollama generator (workbench.llm.client; docs/llm.md). One request per span; its seed
is derived from the attack's seed and the span, so a resumed attack asks the same question.
A span with no usable answer after the attempts gets no guesses and a note, and is asked
again on the next run of the attack. `parallel=N` keeps N of a batch's requests in flight
(workbench.llm.in_flight): each span's request is independent and carries its own seed, and
the guesses come back in the targets' order, so the result is that of parallel=1 (and
`parallel` is not in the attack key).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from workbench.infra.errors import InvalidValue
from workbench.llm.config import OllamaSettings
from workbench.llm.in_flight import in_flight
from workbench.llm.prompt import Prompt, answer_schema
from workbench.privacy.inference_attacks.inference_contract import Guesses, Target, clean_guesses, describe_config

if TYPE_CHECKING:
    from workbench.llm.client import OllamaClient

# 004 Table 4, with two changes: the answer is a JSON object (so the server can constrain it),
# and the replacement may be any kind of replacement, not only a generalisation, since the
# workbench attacks pseudonyms, labels and suppressions too.
SYSTEM = (
    "You will receive a text with one span in double square brackets where the original word(s) have been "
    "replaced with an alternative: a more generic term, an invented substitute, a category label, or nothing. "
    "Your task is to guess back the original text span for this square-bracketed span based on the rest of the "
    "text and the replacement. Return {n} guesses. For date-related information, always guess an exact date "
    "with the format DAY, MONTH (with letters) and YEAR as in this example: Text: \"early 1980s\" - Guess: "
    "\"3 September 1981\". List more likely guesses first. Answer with one JSON object that maps guess_1 … "
    "guess_{n} to your guesses, and nothing else.\n\n"
    "See the example below. Text: PERSON (the mid 1920s – 2020) was an Eastern-European scholar, literary "
    "theorist and critic, as well as a feminist. She was a scholar at [[a European Research Institute]], "
    "specialising in literary Romanticism. Guesses for \"a European Research Institute\":\n{example}"
)
_EXAMPLE = ("the Institute of Literature and Art, Bulgarian Academy of Sciences",
            "the Institute of Polish Literature, University of Warsaw", "the Center for European Neighborhood Studies",
            "the Centre for Research on the History and Culture of Eastern Europe",
            "the Leibniz Institute for the History and Culture of Eastern Europe")


@dataclass(frozen=True, slots=True)
class LlmAttackConfig:
    """The Ollama client's settings (workbench.llm.config.OllamaSettings) plus the attack's own.
    The client's defaults here: the users' model (003 §3.2; 004 used Mistral-7B), 004 §5.2's
    sampling temperature 0.3, base seed 0 (each request's seed is derived from it and the span),
    an answer budget of num_predict = 16 + tokens_per_answer × N."""
    client: OllamaSettings = OllamaSettings(temperature=0.3, seed=0)
    context_chars: int = 6000  # of the pseudonymised document around the target (004: the whole
    # document; 6,000 characters keep prompt and answer inside num_ctx 4096)
    # The attack keys name the answer budget tokens_per_guess (and `-o tokens_per_guess=` still sets it).
    LEGACY_NAMES: ClassVar[Mapping[str, str]] = {"tokens_per_answer": "tokens_per_guess"}

    def __post_init__(self) -> None:
        if self.context_chars < 200:
            raise InvalidValue("ollama attacker: context_chars must be >= 200")


def bracketed(target: Target, chars: int) -> str:
    """The document with the target in [[…]], at most `chars` characters around it, cut at white space."""
    text = target.text
    half = max(0, (chars - (target.end - target.start)) // 2)
    a, b = max(0, target.start - half), min(len(text), target.end + half)
    left, right = text[a:target.start], text[target.end:b]
    if a > 0 and " " in left:
        left = "… " + left[left.index(" ") + 1:]
    if b < len(text) and " " in right:
        right = right[:right.rindex(" ")] + " …"
    return f"{left}[[{target.replacement}]]{right}"


def build_guess_prompt(target: Target, n: int, chars: int, max_chars: int) -> Prompt:
    names = tuple(f"guess_{i}" for i in range(1, n + 1))
    example = "{" + ", ".join(f'"guess_{i}": "{g}"' for i, g in enumerate((_EXAMPLE * n)[:n], 1)) + "}"
    system = SYSTEM.format(n=n, example=example)
    user = (f"Do the same for the text below.\nText: {bracketed(target, chars)}\n"
            f"Guesses for \"{target.replacement}\":")
    return Prompt(system, user, names, answer_schema(names, max_chars))


class LlmAttacker:
    name = "ollama"
    model_kind = "LLM"
    Config = LlmAttackConfig
    concurrent = True  # guess() may be called from several threads at once (the client is thread-safe)

    def __init__(self, config: LlmAttackConfig, n: int) -> None:
        self.config = config
        self.n = n
        self._client: OllamaClient | None = None  # made by load()

    def describe(self) -> dict:
        return describe_config(self.config)

    def load(self, langs: Sequence[str]) -> None:
        from workbench.llm.client import OllamaClient
        from workbench.llm.guard import check_host
        url = check_host(self.config.client.host, self.config.client.allow_remote)
        self._client = OllamaClient(self.config.client, url)
        self._client.check_model()

    def guess(self, targets: Sequence[Target]) -> list[Guesses]:
        if self._client is None:
            self.load([t.lang for t in targets])
        return in_flight(self._guess, targets, self.config.client.parallel)

    def _guess(self, target: Target) -> Guesses:
        prompt = build_guess_prompt(target, self.n, self.config.context_chars, self.config.client.max_chars)
        if self._client is None:
            raise RuntimeError("guess() loads the client first")
        outcome = self._client.ask(prompt, target.key, self.config.client.seed)
        if outcome.answer is None:
            return Guesses((), outcome.failure or "no answer", outcome.requests)
        guesses = clean_guesses([outcome.answer.get(name) for name in prompt.names], self.n)
        return Guesses(guesses, "" if guesses else "the answer holds no guess", outcome.requests)
