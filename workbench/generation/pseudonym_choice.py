"""Choosing one pseudonym from a generator's ranked candidates.

003 §4: with the UPOS filter, the first of the top-k candidates whose UPOS (tagged in
context) equals the original span's; if none fits, the top-1. The filter never accepts a
candidate made only of punctuation and symbols (`”`, `,`, `%`: issue 24): it is dropped
before the choice, as the leak guard drops its candidates, and a span whose candidates are
all such is FAILED. Without the filter the top-1 is taken as it is (003). The leak guard (003 §5.2)
first removes candidates that overlap the original span (workbench.overlap_rules.leaks). If the guard removes every
candidate the span is FAILED, so that "no pseudonym overlaps its original" holds
without exception.

Done here, in the engine, so that every generator honours both options the same way and
no generator ever needs the original text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from workbench.generators.base import FAILED, Prediction
from workbench.model import Document
from workbench.overlap_rules import leaks
from workbench.upos.base import Tagger, is_punctuation_only

PUNCTUATION_ONLY = "UPOS filter: every candidate is punctuation"


@dataclass(frozen=True, slots=True)
class Choice:
    pseudonym: str
    rank: int | None
    pick_upos: str | None
    failed: bool
    note: str
    upos_fallback: bool | None = None  # the filter found no candidate of the wanted UPOS: the top-1


@dataclass(frozen=True, slots=True)
class SelectionInput:
    doc: Document
    span_index: int
    sentence: tuple[int, int]  # the target sentence's character range in doc.text
    wanted_upos: str | None
    prediction: Prediction


def in_context(item: SelectionInput, candidate: str) -> tuple[str, int, int]:
    """The target sentence with the candidate in place of the span: (text, start, end)."""
    span = item.doc.spans[item.span_index]
    a, b = item.sentence
    text = item.doc.text[a:span.start] + candidate + item.doc.text[span.end:b]
    start = span.start - a
    return text, start, start + len(candidate)


def choose_all(items: Sequence[SelectionInput], *, upos_filter: bool, leak_guard: bool,
               tagger: Tagger | None) -> list[Choice]:
    # Candidates that survive the leak guard and the filter's punctuation rule, per item, as
    # (rank, text); the rank stays the generator's.
    allowed: list[list[tuple[int, str]]] = []
    empty_because: list[str] = []
    for item in items:
        original = item.doc.spans[item.span_index].text
        cands = list(enumerate(item.prediction.candidates))
        reason = ""
        if leak_guard:
            cands = [(r, c) for r, c in cands if not leaks(c, original)]
            reason = "leak guard: every candidate overlaps the original"
        if upos_filter and cands:
            cands = [(r, c) for r, c in cands if not is_punctuation_only(c)]
            reason = PUNCTUATION_ONLY
        allowed.append(cands)
        empty_because.append(reason)

    # UPOS of each allowed candidate: the generator's own (PUD gold) or tagged in context,
    # all in one batched tagger call.
    upos: dict[tuple[int, int], str | None] = {}
    if upos_filter:
        queries: dict[str, list] = {}  # per language: [(key, (text, start, end))]
        for n, (item, cands) in enumerate(zip(items, allowed)):
            if item.wanted_upos is None or item.prediction.failed:
                continue
            known = item.prediction.candidate_upos
            for r, c in cands:
                if known:
                    upos[(n, r)] = known[r]
                else:
                    queries.setdefault(item.doc.lang, []).append(((n, r), in_context(item, c)))
        if queries and tagger is None:
            raise ValueError("the UPOS filter needs a tagger")
        for lang, pairs in queries.items():
            for (key, _), tag in zip(pairs, tagger.tag_ranges(lang, [q for _, q in pairs])):
                upos[key] = tag

    choices = []
    for n, (item, cands) in enumerate(zip(items, allowed)):
        pred = item.prediction
        if pred.failed:
            choices.append(Choice(FAILED, None, None, True, pred.note))
            continue
        if not cands:
            choices.append(Choice(FAILED, None, None, True, empty_because[n]))
            continue
        pick, fallback = cands[0], None
        if upos_filter and item.wanted_upos is not None:
            matching = next(((r, c) for r, c in cands if upos.get((n, r)) == item.wanted_upos), None)
            pick, fallback = (cands[0], True) if matching is None else (matching, False)
        choices.append(Choice(pick[1], pick[0], upos.get((n, pick[0])), False, pred.note, fallback))
    return choices
