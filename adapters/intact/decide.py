"""One span through INTACT (004 §3.3): direct identifier → label; else candidates, then the attack loop.

    decision = decide(SpanToSanitise(doc_id, span_index, lang, label, original, identifier_type, pieces),
                      Tools(client, attacker, matchers, settings))

`pieces` are the span's window as a repL slot holds them (workbench.text.slots: text, and gaps
that carry this run's earlier picks or are still to decide), the target among them. The
original is the target's own text: INTACT generalises it, so it reads it (the `original` level).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from workbench.adapters.intact.candidates import Asks, Proposal, llm_proposal, rule_proposal
from workbench.adapters.intact.context import bracketed_sentence, place
from workbench.adapters.intact.direct import is_direct
from workbench.adapters.intact.selection import describe, select
from workbench.privacy.inference_attacks.inference_contract import InferenceAttacker, Target
from workbench.privacy.inference_attacks.matching import Matcher
from workbench.text.slots import Gap

DIRECT_NOTE = "intact: label (direct identifier)"


@dataclass(frozen=True, slots=True)
class SpanToSanitise:
    doc_id: str
    span_index: int
    lang: str
    label: str
    original: str
    identifier_type: str
    pieces: tuple[str | Gap, ...]


@dataclass(frozen=True, slots=True)
class Settings:
    seed: int  # base seed of the candidate requests (the attacker has its own)
    candidates: int = 5  # 004 §5.2: five
    max_chars: int = 100  # longest candidate the JSON schema allows


@dataclass(frozen=True, slots=True)
class Tools:
    client: Asks  # candidate requests (workbench.llm.client.OllamaClient)
    attacker: InferenceAttacker
    matcher_for: Callable[[str], Matcher]  # language -> 004's matching function
    settings: Settings


@dataclass(frozen=True, slots=True)
class Decision:
    replacement: str  # "" when failed
    failed: bool
    note: str
    requests: int  # candidate requests + attack requests
    seconds: float
    candidates: tuple[str, ...] = ()
    source: str = ""  # "direct", "rule" or "llm"


def decide(span: SpanToSanitise, tools: Tools) -> Decision:
    started = time.perf_counter()
    fallback = span.label  # as the `label` reference run writes it (workbench.exchange.reference)
    if is_direct(span.label, span.identifier_type):
        return Decision(fallback, False, DIRECT_NOTE, 0, time.perf_counter() - started, source="direct")
    proposal = rule_proposal(span.original, span.label, span.lang) or _ask_llm(span, tools)
    if not proposal.answered:
        return Decision("", True, proposal.note, proposal.requests, time.perf_counter() - started,
                        source=proposal.source)

    def target_for(i: int, candidate: str) -> Target:
        placed = place(span.pieces, span.span_index, candidate)
        return Target(f"intact|{span.doc_id}|{span.span_index}|{i}", span.lang, span.label, placed.text,
                      placed.start, placed.end)

    chosen = select(span.original, span.label, proposal.candidates, target_for, tools.attacker,
                    tools.matcher_for(span.lang), fallback=fallback)
    requests = proposal.requests + chosen.requests
    seconds = time.perf_counter() - started
    if chosen.failed:
        return Decision("", True, chosen.note, requests, seconds, proposal.candidates, proposal.source)
    return Decision(chosen.replacement, False, describe(chosen, proposal.source), requests, seconds,
                    proposal.candidates, proposal.source)


def _ask_llm(span: SpanToSanitise, tools: Tools) -> Proposal:
    sentence = bracketed_sentence(span.pieces, span.span_index, span.original, span.lang)
    settings = tools.settings
    return llm_proposal(tools.client, span.original, span.label, span.lang, sentence,
                        key=f"intact-candidates|{span.doc_id}|{span.span_index}", seed=settings.seed,
                        n=settings.candidates, max_chars=settings.max_chars)

