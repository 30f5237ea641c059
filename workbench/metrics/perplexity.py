"""Language-model perplexity between original and pseudonymised text (paper 000 §4, Tables 6 and 8).

A run's documents are split by a fixed hash of their ids: HELD_OUT of them are held out, the
rest are training documents. Two causal LMs are fine-tuned from one base model
(MetricConfig.causal_lm: the users' `distilgpt2`, any local directory, or `offline`, the
set-up's stand-in; workbench.causal_lm.loading):

    perplexity_pseudo_on_original  the LM fine-tuned on the run's pseudonymised training
                                   documents scores the held-out ORIGINAL documents (000 Table 8:
                                   would a model trained on shared data work on real text?)
    perplexity_original_on_pseudo  the LM fine-tuned on the original training documents (one per
                                   corpus and language, shared by every run) scores the held-out
                                   PSEUDONYMISED documents (000 Table 6: is the text plausible?)

Each is exp(summed token NLL / tokens) over the held-out documents (token-weighted), with a
95 % bootstrap confidence interval (`_low`, `_high`: the 2.5th and 97.5th percentiles of that
perplexity over BOOTSTRAP resamples of the held-out documents, seeded), as 000's tables print
"(low, high)" beside each value. Lower is better; 000 finds every pseudonymisation above the
original. The `original` reference run replaces every span by itself, so its two LMs are the
same model and both columns read that baseline: the original LM on the held-out originals.

Cheap by construction: each document is read as its first MAX_TOKENS tokens (after an
end-of-text token), and fine-tuning is STEPS steps of BATCH documents, seeded, float32 on the
CPU. A fine-tuned model is saved under cache_dir()/metrics/causal_lm/<key> and each document's
score kept in the "perplexity" results cache; the key hashes the base model's files, these
settings, the corpus and the training texts (which is to say the run), so a report over runs
already scored fine-tunes and scores nothing.

What a document reads is the run's pseudonymised text as placed (workbench.metrics.metric_frame):
a suppressed span leaves nothing, a label or [FAILED] stands as written, and text a system
masked outside gold spans is masked here too. A document with no token left (every word
suppressed) has nothing to predict: it is left out of the held-out score, and teaches a model
nothing. Only documents with at least one span are in the frame; a run part with no held-out
or no training document reads NaN.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from itertools import groupby

import numpy as np
import pandas as pd

from workbench.metrics.backends.cache import content_hash, text_key
from workbench.metrics.base import LOWER, NEUTRAL, MetricInfo
from workbench.metrics.metric_frame import DocView, document_views, runs_of

FAMILY = "perplexity"
# What of MetricConfig.describe() it reads, the models it loads (workbench.metrics.model_use).
MODEL_SETTINGS = ("causal_lm", "dtype")
PSEUDO_ON_ORIGINAL, ORIGINAL_ON_PSEUDO = "perplexity_pseudo_on_original", "perplexity_original_on_pseudo"


def _infos(name: str, label: str, table: str, what: str) -> tuple[MetricInfo, ...]:
    source = f"000 §4 ({table})"
    return (MetricInfo(name, label, FAMILY, 1, None, LOWER, source, what),
            MetricInfo(f"{name}_low", f"{label} low", FAMILY, 1, None, NEUTRAL, source,
                       f"2.5th percentile of {name} over bootstrap resamples of the held-out documents"),
            MetricInfo(f"{name}_high", f"{label} high", FAMILY, 1, None, NEUTRAL, source,
                       f"97.5th percentile of {name} over bootstrap resamples of the held-out documents"))


METRICS = (
    *_infos(PSEUDO_ON_ORIGINAL, "ppl pseudo→orig", "Table 8",
            "perplexity of the held-out original documents under the causal LM fine-tuned on the run's "
            "pseudonymised training documents"),
    *_infos(ORIGINAL_ON_PSEUDO, "ppl orig→pseudo", "Table 6",
            "perplexity of the held-out pseudonymised documents under the causal LM fine-tuned on the original "
            "training documents"),
)


@dataclass(frozen=True, slots=True)
class PerplexitySettings:
    """How the two LMs are fine-tuned and read; every field is part of the models' cache key."""
    held_out: float = 0.2  # share of documents held out (by hash of the document id)
    max_tokens: int = 128  # tokens read of each document, in training and in scoring
    steps: int = 20  # optimiser steps of fine-tuning
    batch_size: int = 4  # documents per step
    lr: float = 5e-4
    seed: int = 13  # fine-tuning order and dropout; the bootstrap's draws
    bootstrap: int = 1000  # resamples for the 95 % interval
    version: int = 1  # bump when the code changes what these settings produce


def is_held_out(doc_id: str, share: float) -> bool:
    """Whether the document is held out: the first 8 hex digits of sha256(doc_id) as a fraction
    of 16**8 fall below `share` (fixed across runs, machines and corpus orders)."""
    return int(hashlib.sha256(doc_id.encode()).hexdigest()[:8], 16) / 16 ** 8 < share


def perplexity(nlls: Sequence[float], tokens: Sequence[int]) -> float:
    """exp(summed NLL / tokens) over documents with at least one token; NaN when none has."""
    total = sum(t for t in tokens)
    return math.exp(sum(nlls) / total) if total else math.nan


# Fewer held-out documents than this give no interval (NaN): one document resampled is that
# document every time, an "interval" of one point (the English PGV-PII split, one document held
# out, read 920.13 | 920.13 | 920.13), and a few give percentiles of a few distinct values.
MIN_INTERVAL_DOCUMENTS = 5


def bootstrap_interval(nlls: Sequence[float], tokens: Sequence[int], resamples: int, seed: int,
                       min_documents: int = MIN_INTERVAL_DOCUMENTS) -> tuple[float, float]:
    """The 2.5th and 97.5th percentiles of `perplexity` over resamples of the documents (with
    replacement, as many as there are), documents without tokens left out first; NaN with fewer
    than min_documents of them."""
    kept = [(n, t) for n, t in zip(nlls, tokens) if t > 0]
    if not kept or len(kept) < min_documents:
        return math.nan, math.nan
    nll, tok = (np.array(v, dtype=np.float64) for v in zip(*kept))
    draws = np.random.default_rng(seed).integers(0, len(kept), size=(resamples, len(kept)))
    values = np.exp(nll[draws].sum(axis=1) / tok[draws].sum(axis=1))
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


@dataclass(frozen=True, slots=True)
class _TrainingSet:
    key: str  # names the fine-tuned model
    texts: tuple[str, ...]


def _training_set(base_identity: str, settings: PerplexitySettings, views: list[DocView], pseudo: bool) -> _TrainingSet:
    docs = sorted((v.doc_id, v.pseudo_text if pseudo else v.text) for v in views)
    payload = json.dumps({"base": base_identity, "settings": asdict(settings), "corpus": views[0].corpus_hash,
                          "texts": content_hash(f"{d}\0{t}" for d, t in docs)}, sort_keys=True)
    return _TrainingSet(hashlib.sha256(payload.encode()).hexdigest()[:16], tuple(t for _, t in docs))


class _Scorer:
    """Per-document (NLL, tokens) under a fine-tuned LM, from the results cache when scored before."""

    def __init__(self, base, settings: PerplexitySettings, models, results) -> None:
        self.base, self.settings, self.models, self.results = base, settings, models, results

    def score(self, lm: _TrainingSet, texts: list[str]) -> list[tuple[float, int]]:
        keys = [text_key(f"causal-lm:{lm.key}", "", t) for t in texts]
        found = self.results.get_many(keys)
        missing = [i for i, k in enumerate(keys) if k not in found]
        if missing:
            from workbench.metrics.backends.perplexity_model import document_nlls
            tokenizer, model = self.models.get(lm.key, self.base.path, lm.texts, self.settings)
            scored = document_nlls(tokenizer, model, [texts[i] for i in missing], self.settings.max_tokens)
            new = {keys[i]: list(s) for i, s in zip(missing, scored)}
            self.results.put_many(new)
            found.update(new)
        return [tuple(found[k]) for k in keys]

    def summary(self, lm: _TrainingSet, texts: list[str]) -> list[float]:
        """[perplexity, low, high] of the texts under the LM."""
        nlls, tokens = zip(*self.score(lm, texts))
        return [perplexity(nlls, tokens),
                *bootstrap_interval(nlls, tokens, self.settings.bootstrap, self.settings.seed)]


def run_perplexities(views: list[DocView], scorer: _Scorer) -> list[float]:
    """The six values of METRICS for one run (or one language's part of it)."""
    settings = scorer.settings
    held = [v for v in views if is_held_out(v.doc_id, settings.held_out)]
    train = [v for v in views if not is_held_out(v.doc_id, settings.held_out)]
    if not held or not train:
        return [math.nan] * len(METRICS)
    original_lm = _training_set(scorer.base.identity, settings, train, pseudo=False)
    pseudo_lm = _training_set(scorer.base.identity, settings, train, pseudo=True)
    return [*scorer.summary(pseudo_lm, [v.text for v in held]),
            *scorer.summary(original_lm, [v.pseudo_text for v in held])]


def _models(context):
    """The context's fine-tuned models (one FineTunedLMs per report), on disk when it caches."""
    from workbench.metrics.backends.cache import default_cache_path
    from workbench.metrics.backends.perplexity_model import FineTunedLMs
    if context.causal_lms is None:
        folder = default_cache_path("perplexity").parent / "causal_lm" if context.config.cache else None
        context.causal_lms = FineTunedLMs(folder)
    return context.causal_lms


def compute(frame: pd.DataFrame, context=None, settings: PerplexitySettings | None = None) -> pd.DataFrame:
    from workbench.causal_lm.loading import resolve_causal_lm
    from workbench.metrics.metric_context import MetricContext
    context = context or MetricContext()
    names = [m.name for m in METRICS]
    runs = runs_of(frame)
    if frame.empty:
        return pd.DataFrame(index=pd.Index(runs, name="run_id"), columns=names, dtype=np.float64)
    settings = settings or context.perplexity_settings or PerplexitySettings()  # given, the context's, the defaults
    scorer = _Scorer(resolve_causal_lm(context.config.causal_lm), settings, _models(context),
                     context.cache("perplexity"))
    rows = {run_id: run_perplexities(list(views), scorer)
            for run_id, views in groupby(document_views(frame), key=lambda v: v.run_id)}
    return pd.DataFrame.from_dict(rows, orient="index", columns=names).reindex(runs).astype(np.float64)
