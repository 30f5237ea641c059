"""Choosing a span's replacement (004 §3.2-3.3, Algorithm 1): the first candidate an attack does not disclose.

Candidates are tried most specific first. For each, an inference attacker
(workbench.privacy.inference_attacks.inference_contract: any InferenceAttacker; the LLM one by default) reads the
current sanitised text with the candidate in the span's place and guesses the original N times;
004's matching function (workbench.privacy.inference_attacks.matching.Matcher) says whether a guess discloses it.
The first candidate none of whose guesses disclose the original is kept, and later candidates
are not attacked. When every candidate is disclosed the span gets the fallback (its label).

One check beyond 004: a candidate that by itself discloses the original under the matching
function ("an assize court" for "Sinop Assize Court" shares a lemma) counts as disclosed without
asking the attacker. The workbench's inference measure counts a replacement that discloses its
original (docs/privacy.md, disclosure_replacement); INTACT must not keep what that measure flags,
and the request is saved.

An attack that gets no answer (the LLM attacker's server timed out, refused, or never answered
with guesses) leaves the candidate unchecked: the span FAILS with the attacker's note (an
outage's note starts with `unreachable`, which `workbench generate` counts and --retry-failed
retries), since keeping an unchecked candidate could disclose, and labelling it would hide
the outage.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from workbench.privacy.inference_attacks.inference_contract import InferenceAttacker, Target
from workbench.privacy.inference_attacks.matching import Matcher

REPLACEMENT_RULE = "candidate"  # prefix of the rule when the candidate itself discloses


@dataclass(frozen=True, slots=True)
class Check:
    """One candidate's test."""
    candidate: str
    rule: str | None  # the matching rule that disclosed it ("candidate:lemma" when by itself); None: kept
    guesses: tuple[str, ...] = ()
    requests: int = 0


@dataclass(frozen=True, slots=True)
class Selection:
    replacement: str  # "" when failed
    kept: int | None  # index of the kept candidate; None: the fallback, or failed
    checks: tuple[Check, ...]
    requests: int  # attack requests
    failed: bool = False
    note: str = ""  # why it failed


def select(original: str, label: str, candidates: Sequence[str], target_for: Callable[[int, str], Target],
           attacker: InferenceAttacker, matcher: Matcher, *, fallback: str) -> Selection:
    """The first candidate not disclosed; `target_for(i, candidate)` places candidate i in the sanitised text."""
    checks: list[Check] = []
    requests = 0
    for i, candidate in enumerate(candidates):
        own = matcher.discloses(original, label, candidate)
        if own:
            checks.append(Check(candidate, f"{REPLACEMENT_RULE}:{own}"))
            continue
        answer = attacker.guess([target_for(i, candidate)])[0]
        requests += answer.requests
        if not answer.guesses:
            checks.append(Check(candidate, None, (), answer.requests))
            why = answer.note or "the attacker gave no guess"
            return Selection("", None, tuple(checks), requests, failed=True,
                             note=f"{why} (attack on candidate {i + 1} of {len(candidates)})")
        hit = matcher.first_hit(original, label, answer.guesses)
        checks.append(Check(candidate, hit.rule if hit else None, answer.guesses, answer.requests))
        if hit is None:
            return Selection(candidate, i, tuple(checks), requests)
    return Selection(fallback, None, tuple(checks), requests)


def describe(selection: Selection, source: str) -> str:
    """The note stored with a decided span: what was kept and how many candidates were disclosed."""
    n = len(selection.checks)
    disclosed = sum(1 for c in selection.checks if c.rule)
    if selection.kept is not None:
        return f"intact: {source} candidate {selection.kept + 1} kept ({disclosed} disclosed)"
    if n == 0:
        return f"intact: label ({source} gave no candidate)"
    return f"intact: label ({n} of {n} {source} candidates disclosed)"
