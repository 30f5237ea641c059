"""Replacement candidates for one span (004 §3.1): by rule for dates, else from the LLM.

The LLM is asked through the workbench's Ollama client (workbench.llm.client.OllamaClient.ask:
retries, a deadline per request, the loopback guard, `unreachable` notes after an outage), so a
request that fails here fails as the ollama generator's do. The answer's values are cleaned:
white space collapsed, empty and repeated ones (case-insensitive) left out, and a value equal to
the original left out too (004 rules out synonyms and paraphrases; the same text is the plainest
of them). The order the model gave is kept: it is the order of abstraction 004 asks for.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Protocol

from workbench.adapters.intact.dates import date_generalisations
from workbench.adapters.intact.prompts import candidate_prompt
from workbench.llm.client import Outcome
from workbench.llm.prompt import Prompt
from workbench.privacy.inference_attacks.inference_contract import clean_guesses
from workbench.privacy.inference_attacks.matching import DATE_LABELS, normalise


class Asks(Protocol):
    """What INTACT needs of workbench.llm.client.OllamaClient (tests script it)."""

    def ask(self, prompt: Prompt, key: str, base_seed: int) -> Outcome: ...


@dataclass(frozen=True, slots=True)
class Proposal:
    candidates: tuple[str, ...]  # most specific first; () when none came
    source: str  # "rule" (dates) or "llm"
    note: str = ""  # why there are none ("" when there are)
    requests: int = 0
    seconds: float = 0.0
    # False: the model gave no answer (the span FAILS); True with no candidates: an answer with
    # nothing usable, which falls back to the label as 004's Algorithm 1 does.
    answered: bool = True


def is_date(label: str) -> bool:
    return label.strip().lower() in DATE_LABELS


def rule_proposal(original: str, label: str, lang: str) -> Proposal | None:
    """The date rule chain (workbench.adapters.intact.dates) for a date span it can read; else None."""
    if not is_date(label):
        return None
    chain = date_generalisations(original, lang)
    return Proposal(chain, "rule") if chain else None


def llm_proposal(client: Asks, original: str, label: str, lang: str, sentence: str, *, key: str, seed: int,
                 n: int, max_chars: int) -> Proposal:
    """Ask the LLM for n candidates of `original` in `sentence` (which holds it as [[original]]).
    `key` names the request for its seeds: the same span asks with the same seeds when resumed."""
    prompt = candidate_prompt(sentence, original, label, lang, n=n, max_chars=max_chars)
    digest = hashlib.sha256(prompt.user.encode()).hexdigest()[:16]
    outcome = client.ask(prompt, f"{key}|{digest}", seed)
    if outcome.answer is None:
        return Proposal((), "llm", outcome.failure or "no answer", outcome.requests, outcome.seconds, answered=False)
    values = clean_guesses([outcome.answer.get(name) for name in prompt.names], n)
    kept = tuple(v for v in values if normalise(v) != normalise(original))
    note = "" if kept else "the answer holds no usable candidate"
    return Proposal(kept, "llm", note, outcome.requests, outcome.seconds)
