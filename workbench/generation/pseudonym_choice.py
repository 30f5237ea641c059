"""Choosing one pseudonym from a generator's ranked candidates.

003 §4: with the UPOS filter, the first of the top-k candidates whose UPOS (tagged in
context) equals the original span's; if none fits, the top-1. The filter never accepts a
candidate made only of punctuation and symbols (`”`, `,`, `%`: issue 24): it is dropped
before the choice, as the leak guard drops its candidates, and a span whose candidates are
all such is FAILED. Without the filter the top-1 is taken as it is (003). The leak guard (003 §5.2)
first removes candidates that overlap the original span (workbench.text.overlap_rules.leaks); with
the corpus scope (`--leak-guard corpus`, issue 27) also candidates equal to any original value of
the corpus (whole value, case and white space ignored: overlap_rules.value_key), so no pseudonym
is another entity's real value. If the guard removes every candidate the span is FAILED, so that
"no pseudonym overlaps its original" holds without exception.

The morphology filter (`--morph-filter`, issue 27) is a stricter UPOS filter: the first candidate
whose UPOS and UD Case/Number/Definite, tagged in context by the same tagger, match the
original's (a feature the original lacks is not required: workbench.upos.features). If none
matches, it falls back as the UPOS filter does (the first of the original's UPOS, else the
top-1), and the prediction's note says so (MORPH_FALLBACK); `generate` prints how many spans fell
back and the generation family reports the rate per run (morph_fallback_rate). A Swedish genitive
is the exception (issue 37): where no candidate is a genitive, the best candidate of a nominal
UPOS (the original's where that is NOUN, PROPN or X, else NOUN or PROPN) is put in the
genitive (`Gud` -> `Guds`: workbench.text.swedish_genitive) and the note says MORPH_REINFLECTED;
a reinflected form the leak guard would refuse is passed over.

Swedish genitives (workbench.generation.genitive): for a slot the engine reads as one, the
candidates of a generator that draws base forms (Generator.reinflects_genitive) are put in the
genitive before anything else sees them, so the guard and the filters judge what goes in the
text; the stored candidates stay the generator's, and the pick's rank points into them.

keep_origin (issue 41; a generator's setting, `-o keep_origin=true` of the masked-LM generators:
Generator.keeps_origin) is a candidate filter ahead of the UPOS filter: for a person or place span
whose original's origin is known (workbench.text.origins, the lookup the origin metrics read), the
candidates left are those that keep it (a name's Faker locales overlapping by origins.KEEP_AT, a
place sharing a country), the UPOS and morphology filters choosing among them. Where none keeps it,
or the original's origin is unknown, every candidate stays (the generator's normal choice) and the
note says which (ORIGIN_FALLBACK, ORIGIN_UNKNOWN); `generate` prints how many fell back.

Done here, in the engine, so that every generator honours these options the same way and
no generator ever needs the original text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from workbench.data_model import Document
from workbench.generator_contract.base import Prediction
from workbench.prediction_notes import FAILED
from workbench.text import origins
from workbench.text.overlap_rules import leaks, value_key
from workbench.text.punctuation import is_punctuation_only
from workbench.text.swedish_genitive import genitive
from workbench.upos.base import Tagger
from workbench.upos.features import features_match, is_genitive, tag_feature_ranges
from workbench.upos.label_upos import is_name_label

PUNCTUATION_ONLY = "UPOS filter: every candidate is punctuation"
LEAK_GUARD_EMPTY = "leak guard: every candidate overlaps the original"
CORPUS_GUARD_EMPTY = "leak guard (corpus): every candidate overlaps the original or is an original value of the corpus"
# The note of a pick the morphology filter could not make: no candidate had the original's
# UPOS and features, so the UPOS filter's rule chose (its own fallback is Choice.upos_fallback).
MORPH_FALLBACK = "morph filter: no candidate with the original's features"
# The note of a Swedish genitive whose candidates held none: the best nominal one reinflected.
MORPH_REINFLECTED = "morph filter: no genitive candidate, reinflected"
# keep_origin's fall-backs: a person or place span where no candidate keeps the original's origin,
# or whose original's origin the lists do not know; the generator's normal choice is taken.
ORIGIN_FALLBACK = "keep origin: no candidate of the original's origin"
ORIGIN_UNKNOWN = "keep origin: the original's origin is unknown"
# The UPOS a reinflected candidate may have: a genitive is a name's or a noun's.
NOMINAL_UPOS = ("NOUN", "PROPN", "X")


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
    # The original's Case/Number/Definite tagged in context (the morphology filter); None: not asked.
    wanted_features: Mapping[str, str] | None = None
    # The engine reads the slot as a Swedish genitive (workbench.upos.genitive_reading; only in a
    # run that handles them: workbench.generation.genitive).
    genitive: bool = False


def in_context(item: SelectionInput, candidate: str) -> tuple[str, int, int]:
    """The target sentence with the candidate in place of the span: (text, start, end)."""
    span = item.doc.spans[item.span_index]
    a, b = item.sentence
    text = item.doc.text[a:span.start] + candidate + item.doc.text[span.end:b]
    start = span.start - a
    return text, start, start + len(candidate)


def choose_all(items: Sequence[SelectionInput], *, upos_filter: bool, leak_guard: bool,
               tagger: Tagger | None, morph_filter: bool = False,
               corpus_values: frozenset[str] | None = None, reinflect: bool = False,
               keep_origin: bool = False) -> list[Choice]:
    """One Choice per item. corpus_values: the corpus's original values as value_key gives them,
    given with the guard's corpus scope; morph_filter implies the UPOS filter. reinflect: the
    generator draws base forms, put in the genitive for the items read as genitives. keep_origin:
    the origin filter (see the module's docstring)."""
    upos_filter = upos_filter or morph_filter
    if reinflect:
        items = [_in_the_genitive(item) if item.genitive else item for item in items]
    allowed, empty_because = _allowed(items, upos_filter, leak_guard, corpus_values)
    origin_notes = [""] * len(items)
    if keep_origin:  # before the UPOS tagging: the tagger reads only the candidates left
        for n, item in enumerate(items):
            if allowed[n] and not item.prediction.failed:
                allowed[n], origin_notes[n] = of_origin(item, allowed[n])
    upos = _candidate_upos(items, allowed, tagger) if upos_filter else {}
    features = _candidate_features(items, allowed, tagger) if morph_filter else {}

    choices = []
    for n, (item, cands) in enumerate(zip(items, allowed)):
        pred = item.prediction
        if pred.failed:
            choices.append(Choice(FAILED, None, None, True, pred.note))
            continue
        if not cands:
            choices.append(Choice(FAILED, None, None, True, empty_because[n]))
            continue
        pick, fallback, note = cands[0], None, "; ".join(x for x in (pred.note, origin_notes[n]) if x)
        if upos_filter and item.wanted_upos is not None:
            fits_upos = [(r, c) for r, c in cands if upos.get((n, r)) == item.wanted_upos]
            if morph_filter and item.wanted_features is not None:
                fits = next(((r, c) for r, c in fits_upos
                             if features_match(item.wanted_features, features.get((n, r), {}))), None)
                made = None
                if fits is None and item.genitive and is_genitive(item.wanted_features):
                    made = _reinflected(item, cands, upos, n, leak_guard, corpus_values)
                if made is not None:
                    (r, form), upos_of = made, upos.get((n, made[0]))
                    note = "; ".join(x for x in (note, MORPH_REINFLECTED) if x)
                    choices.append(Choice(form, r, upos_of, False, note, upos_of != item.wanted_upos))
                    continue
                if fits is None:
                    note = "; ".join(x for x in (note, MORPH_FALLBACK) if x)
                fits_upos = [fits] if fits is not None else fits_upos
            pick, fallback = (cands[0], True) if not fits_upos else (fits_upos[0], False)
        choices.append(Choice(pick[1], pick[0], upos.get((n, pick[0])), False, note, fallback))
    return choices


def of_origin(item: SelectionInput, cands: list[tuple[int, str]]) -> tuple[list[tuple[int, str]], str]:
    """keep_origin: the candidates keeping the original's origin, and "" ; or all of them and the
    fall-back's note. Spans neither a person's nor a place's are left as they are, with no note."""
    span = item.doc.spans[item.span_index]
    kind = origins.PERSON if is_name_label(span.label) else origins.PLACE if origins.is_place_label(span.label) \
        else None
    if kind is None:
        return cands, ""
    original = origins.origin_of(kind, span.text, item.doc.lang)
    if original is None:
        return cands, ORIGIN_UNKNOWN
    same = [(r, c) for r, c in cands
            if (found := origins.origin_of(kind, c, item.doc.lang)) is not None and origins.kept(kind, original, found)]
    return (same, "") if same else (cands, ORIGIN_FALLBACK)


def _in_the_genitive(item: SelectionInput) -> SelectionInput:
    """The item with its generator's candidates in the Swedish genitive, one for one (ranks kept)."""
    pred = item.prediction
    if pred.failed:
        return item
    return replace(item, prediction=replace(pred, candidates=tuple(genitive(c) for c in pred.candidates)))


def _reinflected(item: SelectionInput, cands: list[tuple[int, str]], upos: Mapping, n: int, leak_guard: bool,
                 corpus_values: frozenset[str] | None) -> tuple[int, str] | None:
    """(rank, genitive form) of the best candidate of a nominal UPOS: the first of the original's
    UPOS where that is nominal, else the first NOUN or PROPN (the tagger reads names it does not
    know as verbs: `Lis familj`); None when no candidate has one, or the guard refuses every such
    form."""
    original = item.doc.spans[item.span_index].text
    ranked = ([item.wanted_upos] if item.wanted_upos in NOMINAL_UPOS else []) + list(NOMINAL_UPOS[:2])
    for wanted in ranked:
        for r, c in cands:
            if upos.get((n, r)) != wanted:
                continue
            form = genitive(c)
            if leak_guard and (leaks(form, original)
                               or (corpus_values is not None and value_key(form) in corpus_values)):
                continue
            return r, form
    return None


def _allowed(items: Sequence[SelectionInput], upos_filter: bool, leak_guard: bool,
             corpus_values: frozenset[str] | None) -> tuple[list[list[tuple[int, str]]], list[str]]:
    """Per item, the candidates that survive the leak guard and the filter's punctuation rule as
    (rank, text), the rank staying the generator's; and why an item would be left with none."""
    allowed: list[list[tuple[int, str]]] = []
    empty_because: list[str] = []
    for item in items:
        original = item.doc.spans[item.span_index].text
        cands = list(enumerate(item.prediction.candidates))
        reason = ""
        if leak_guard:
            cands = [(r, c) for r, c in cands if not leaks(c, original)]
            reason = LEAK_GUARD_EMPTY
            if corpus_values is not None:
                cands = [(r, c) for r, c in cands if value_key(c) not in corpus_values]
                reason = CORPUS_GUARD_EMPTY
        if upos_filter and cands:
            cands = [(r, c) for r, c in cands if not is_punctuation_only(c)]
            reason = PUNCTUATION_ONLY
        allowed.append(cands)
        empty_because.append(reason)
    return allowed, empty_because


def _candidate_upos(items, allowed, tagger: Tagger | None) -> dict[tuple[int, int], str | None]:
    """UPOS of each allowed candidate, keyed (item, rank): the generator's own (PUD gold) or
    tagged in context, all in one batched tagger call per language."""
    upos: dict[tuple[int, int], str | None] = {}
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
    if not queries:
        return upos
    if tagger is None:
        raise ValueError("the UPOS filter needs a tagger")
    for lang, pairs in queries.items():
        for (key, _), tag in zip(pairs, tagger.tag_ranges(lang, [q for _, q in pairs])):
            upos[key] = tag
    return upos


def _candidate_features(items, allowed, tagger: Tagger | None) -> dict[tuple[int, int], dict[str, str]]:
    """Case/Number/Definite of each allowed candidate in context, keyed (item, rank), for the
    items whose original's features are known."""
    queries: dict[str, list] = {}
    for n, (item, cands) in enumerate(zip(items, allowed)):
        if item.wanted_upos is None or item.wanted_features is None or item.prediction.failed:
            continue
        for r, c in cands:
            queries.setdefault(item.doc.lang, []).append(((n, r), in_context(item, c)))
    found: dict[tuple[int, int], dict[str, str]] = {}
    if not queries:
        return found
    if tagger is None:
        raise ValueError("the morphology filter needs a tagger")
    for lang, pairs in queries.items():
        found.update((key, f) for (key, _), f in zip(pairs, tag_feature_ranges(tagger, lang, [q for _, q in pairs])))
    return found
