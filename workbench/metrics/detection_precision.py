"""Detection precision weighted by information content: TAB's evaluation (Pilán et al. 2022, §6.2;
its evaluation.py, get_precision with BertTokenWeighting), for runs that bring their own spans.

Input per document: the text, the character ranges the system masked (its masked ranges), and
the gold spans (the corpus's spans to mask). As TAB:
  * each masked range is split into word tokens (regex \\w+, TAB's split_by_tokens);
  * a token is a true positive when a gold span covers it wholly;
  * each token weighs its information content IC = −log2 p(token | context): every token the
    system masked is masked in the document at once, and p is the smallest probability a masked
    LM gives one of the token's pieces (TAB takes the min over a word's BERT pieces, in
    segments of 100 pieces). TAB writes −ln p: the unit cancels in the ratio;
  * precision = Σ IC(true positives) / Σ IC(masked tokens), pooled over a run's documents
    (TAB's micro-average); NaN for a run that masked no token.
A token is masked or not as a whole (TAB: a gold span must cover the whole token), so a system
that masks "Mr" before a gold name loses precision by that word's IC.

Weights (`TokenWeights`: `weights(text, tokens) -> [float]`):
    MaskedLMWeights   TAB's, over a workbench.mlm MaskedLM; users' default TAB_IC_MODEL
                      (bert-base-uncased, TAB's), any local directory, or `offline`
    WordFrequencyWeights   the fallback where no masked LM loads (torch missing, the offline
                      model not built): −log p of the word in the run's corpus, TPS's estimate
                      (workbench.metrics.tps.InformationContent, 004 §4.1.1)
    UniformWeights    every token 1 (TAB's script default): unweighted token precision
`information_weights` picks one by that rule and says which in its note.

Where every masked token lies in a gold span the precision is 1 whatever the weights: no model is
loaded then (the common case until a system's detections outside the gold spans are read).
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

Range = tuple[int, int]
TAB_IC_MODEL = "google-bert/bert-base-uncased"  # TAB's BertTokenWeighting ('bert-base-uncased')
SEGMENT_PIECES = 100  # TAB's max_segment_size: the masked LM reads a document 100 pieces at a time
_WORD = re.compile(r"\w+", re.UNICODE)


class TokenWeights(Protocol):
    def weights(self, text: str, tokens: Sequence[Range]) -> Sequence[float]:
        """Information content of each token of `text` (character ranges), all of them masked at once."""


@dataclass(frozen=True, slots=True)
class DocumentMasks:
    """One document as precision reads it: its text, what the system masked, what the corpus says to mask."""
    text: str
    masked: tuple[Range, ...]  # the system's masked character ranges (may overlap)
    gold: tuple[Range, ...]  # the gold spans to mask
    lang: str = "en"  # which masked LM reads it


def masked_tokens(text: str, masked: Iterable[Range]) -> list[Range]:
    """The word tokens (\\w+) inside each masked range, each once, in text order (TAB's split_by_tokens)."""
    found = {(a + m.start(), a + m.end()) for a, b in masked for m in _WORD.finditer(text[a:b])}
    return sorted(found)


def covered(token: Range, gold: Sequence[Range]) -> bool:
    """True when one gold span holds the whole token (TAB's get_annotators_for_span)."""
    return any(a <= token[0] and token[1] <= b for a, b in gold)


def ic_weighted_precision(documents: Iterable[DocumentMasks],
                          weights: TokenWeights | Callable[[str], TokenWeights]) -> float:
    """Σ IC of masked tokens in gold spans / Σ IC of masked tokens over the documents; NaN if none.

    `weights`: a TokenWeights, or a function making one for a language, called once per language
    and only when some masked token lies outside every gold span (otherwise the answer is 1
    whatever the weights)."""
    tokens = [(d, masked_tokens(d.text, d.masked)) for d in documents]
    tokens = [(d, ts) for d, ts in tokens if ts]
    if not tokens:
        return math.nan
    if all(covered(t, d.gold) for d, ts in tokens for t in ts):
        return 1.0
    made: dict[str, TokenWeights] = {}
    hit = total = 0.0
    for d, ts in tokens:
        if d.lang not in made:
            made[d.lang] = weights if hasattr(weights, "weights") else weights(d.lang)
        for token, w in zip(ts, made[d.lang].weights(d.text, ts)):
            total += w
            hit += w if covered(token, d.gold) else 0.0
    return hit / total if total > 0 else math.nan


class UniformWeights:
    """Every token weighs 1: unweighted token-level precision (TAB's default weighting)."""
    note = "uniform"

    def weights(self, text: str, tokens: Sequence[Range]) -> list[float]:
        return [1.0] * len(tokens)


class WordFrequencyWeights:
    """IC from word frequencies in the given texts (TPS's estimate, add-one smoothed), in bits."""

    def __init__(self, texts: Iterable[str], note: str = "word frequencies") -> None:
        from workbench.metrics.tps import InformationContent
        self.ic = InformationContent(texts)
        self.note = note

    def weights(self, text: str, tokens: Sequence[Range]) -> list[float]:
        return [self.ic.word(text[a:b].lower()) / math.log(2) for a, b in tokens]


class MaskedLMWeights:
    """TAB's BertTokenWeighting over a workbench.mlm MaskedLM: IC = −log2 of the least probable piece."""

    def __init__(self, mlm, note: str) -> None:
        self.mlm = mlm
        self.note = note
        # Names the numbers: the model as loaded (the offline model's folder carries its build hash).
        self.identity = f"ic-weights:{getattr(mlm, 'source', note)}:{SEGMENT_PIECES}"

    def weights(self, text: str, tokens: Sequence[Range]) -> list[float]:
        mlm = self.mlm
        encoded = mlm.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
        ids, offsets = list(encoded["input_ids"]), encoded["offset_mapping"]
        pieces_of = [[i for i, (a, b) in enumerate(offsets) if a < end and start < b] for start, end in tokens]
        masked = sorted({i for pieces in pieces_of for i in pieces})
        actual = {i: ids[i] for i in masked}
        for i in masked:
            ids[i] = mlm.mask_id
        bits = self._surprisal(ids, masked, actual)
        return [max((bits[i] for i in pieces), default=0.0) for pieces in pieces_of]  # TAB: 0 for no piece

    def _surprisal(self, ids: list[int], masked: list[int], actual: dict[int, int]) -> dict[int, float]:
        """−log2 p(actual piece) at each masked position, the document read SEGMENT_PIECES pieces at a time."""
        from workbench.mlm.masked_lm import Encoded
        mlm, torch = self.mlm, self.mlm.torch
        rows, positions, owners = [], [], []
        shift = len(mlm.prefix)
        for start in range(0, len(ids), SEGMENT_PIECES):
            mine = [i for i in masked if start <= i < start + SEGMENT_PIECES]
            if mine:
                segment = tuple(mlm.prefix + ids[start:start + SEGMENT_PIECES] + mlm.suffix)
                rows.append(Encoded(segment, (), (), ()))
                positions.append([i - start + shift for i in mine])
                owners.append(mine)
        out: dict[int, float] = {}
        for logits, mine in zip(mlm.logits(rows, positions), owners):
            logp = torch.log_softmax(logits.float(), dim=-1)
            for row, i in enumerate(mine):
                out[i] = -float(logp[row, actual[i]]) / math.log(2)
        return out


class CachedWeights:
    """A TokenWeights whose answers are kept in a metrics cache (workbench.metrics.backends.cache.JsonCache)
    by model, text and tokens: on two CPU cores the offline MLM takes minutes per imported run of
    TAB test with its own detections, and a report over runs already scored recomputes nothing."""

    def __init__(self, inner: MaskedLMWeights, cache) -> None:
        self.inner, self.cache, self.note = inner, cache, inner.note

    def weights(self, text: str, tokens: Sequence[Range]) -> list[float]:
        from workbench.metrics.backends.cache import content_hash
        key = content_hash([self.inner.identity, text, repr(list(tokens))])
        found = self.cache.get_many([key])
        if key in found:
            return found[key]
        computed = [float(w) for w in self.inner.weights(text, tokens)]
        self.cache.put_many({key: computed})
        return computed


_SAID: set[str] = set()  # fallback warnings already printed (one per model and language per process)


def information_weights(ref: str, lang: str, texts: Sequence[str],
                        log: Callable[[str], None] | None = None, cache=None) -> TokenWeights:
    """The weights for `ref` by the module's rule: the masked LM `ref`; for the default (TAB's model,
    English; a Swedish document gets the workbench's Swedish default, workbench.mlm.models)
    where it is not here, the offline masked LM of `lang`, then word frequencies over `texts`.
    A model the user named that does not load is a WorkbenchError (one line, naming the ways out).
    cache: a JsonCache for the masked LM's answers (None: computed every time)."""
    from workbench.infra.errors import WorkbenchError
    from workbench.mlm.models import DEFAULT_SV, model_for
    say = log or _warn_once
    default = ref == TAB_IC_MODEL
    ref = model_for(None, TAB_IC_MODEL, DEFAULT_SV, lang) if default else ref
    keep = (lambda weights: CachedWeights(weights, cache)) if cache is not None else (lambda weights: weights)
    try:
        return keep(MaskedLMWeights(_load(ref, lang), ref))
    except WorkbenchError as exc:
        if not default:
            raise
        missing = str(exc).split(". ")[0]
    try:
        weights = MaskedLMWeights(_load("offline", lang), f"offline ({ref} not here)")
        say(f"detection precision: {missing}; information content from the offline masked LM instead")
        return keep(weights)
    except WorkbenchError:
        say(f"detection precision: {missing}, and no offline masked LM is built; information content from word "
            "frequencies in the corpus instead")
        return WordFrequencyWeights(texts, f"word frequencies ({ref} not here)")


def _warn_once(message: str) -> None:
    if message not in _SAID:
        _SAID.add(message)
        print(f"warning: {message}", file=sys.stderr)


@lru_cache(maxsize=4)  # one load per model and language for a whole report
def _load(ref: str, lang: str):
    from workbench.mlm.loading import load_masked_lm, resolve
    return load_masked_lm(resolve(ref, lang), lang=lang)
