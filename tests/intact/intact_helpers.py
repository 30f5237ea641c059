"""Scripted stand-ins for INTACT's two model roles, and a matching function that needs no lemmatiser.

ScriptedClient answers candidate prompts as OllamaClient.ask does (an Outcome), from a table
keyed by the bracketed original; ScriptedAttacker answers inference attacks as an
InferenceAttacker does (Guesses), from a table keyed by the candidate it reads. Both record
what they were asked, so a test can check which requests were made."""

from __future__ import annotations

import re

from workbench.llm.client import Outcome
from workbench.privacy.inference_attacks.inference_contract import Guesses
from workbench.privacy.inference_attacks.matching import Matcher, Word

STOPS = frozenset("a an the of in on at for to and by was is den i på en ett och av".split())
OTHER_GUESSES = ("Lima", "Quito")  # disclose none of the originals used in these tests


def simple_matcher() -> Matcher:
    """004's matching function over lower-cased forms as lemmas (the rules are the real ones)."""
    def lemmatise(texts):
        return [[Word(t, t.lower(), t.isalpha(), t.lower() in STOPS, not any(c.isalnum() for c in t))
                 for t in re.findall(r"\w+|[^\w\s]", text)] for text in texts]
    return Matcher(lemmatise)


class ScriptedClient:
    """answers: original -> candidates in the model's order, or an Outcome to return as is."""

    def __init__(self, answers: dict[str, object]) -> None:
        self.answers = answers
        self.prompts = []  # (prompt, key, seed) per request

    def ask(self, prompt, key, base_seed):
        self.prompts.append((prompt, key, base_seed))
        original = re.search(r"Sorted replacements for \[\[(.*)\]\]:$", prompt.user).group(1)
        answer = self.answers[original]
        if isinstance(answer, Outcome):
            return answer
        return Outcome({name: value for name, value in zip(prompt.names, answer)}, "", 1, 0.0)


class ScriptedAttacker:
    """disclosing: candidate -> guesses that give the original away; any other candidate gets
    OTHER_GUESSES; a candidate mapped to a Guesses object gets that (a failed attack)."""
    name = "scripted"
    n = 2

    def __init__(self, disclosing: dict[str, object]) -> None:
        self.disclosing = disclosing
        self.targets = []

    def describe(self) -> dict:
        return {"script": sorted(self.disclosing)}

    def load(self, langs) -> None:
        pass

    def guess(self, targets):
        out = []
        for target in targets:
            self.targets.append(target)
            scripted = self.disclosing.get(target.replacement, OTHER_GUESSES)
            out.append(scripted if isinstance(scripted, Guesses) else Guesses(tuple(scripted), "", 1))
        return out
