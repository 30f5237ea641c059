"""Downstream utility (paper 002 §4): does a model trained on the pseudonymised documents still
work on the original ones?

002 trains an NER model on the original training set (M) and on its anonymised version (M'),
tests both on the original validation set, and reports the difference. Here the NER task is the
corpus's own PII labels (the frame's spans and their `label`), and the documents are
cross-validated instead of split once:

    folds      K = MetricConfig.folds (default 5), fewer when a run has fewer documents; the
               documents sorted by the SHA-256 of their ids and dealt round-robin, so the folds are
               fixed by the ids, never drawn at random, and every fold holds a document
    per fold   M  = tagger trained on the original text of the other folds' documents
               M' = the same tagger trained on the run's pseudonymised text of those documents
               both tested on the original text of the fold's documents
    tagger     a CRF over word features, fixed hyper-parameters (workbench.metrics.backends.downstream_model)
    score      entity-level exact-match micro-F1 (conlleval / seqeval's default), the counts pooled
               over every held-out sentence of every fold

    downstream_f1_original  F1 of M: the ceiling, the same for every run over the same documents
    downstream_f1           F1 of M'
    downstream_delta_f1     downstream_f1_original − downstream_f1, in [−1, 1], lower is better
                            (002 writes Δ = M'(V) − M(V), higher better: the sign is turned so that
                            this reads as a loss, like information_loss; negative when M' does better)

What each run's training text holds (its DocView: the pseudonymised document, each replacement
where it stands): the span's label is carried onto the text placed for it, so
- a pseudonym ("Eva Lund" for "Anna Berg") is tagged as the entity: M' learns names it will not
  see in the test, as 002's pseudonymisation does;
- the `original` reference run trains on exactly the original text, so M' is M and Δ = 0 exactly;
- a label token ("PERSON", "[PERSON]") is tagged as the entity: M' learns the label word as the
  entity's cue, and that word never stands in the original text. The label word alone explains
  every training entity, so the CRF's L1 term leaves the words around it and the entity's shape
  next to no weight: on the original text M' finds few entities or none, even where a word before
  the entity would tell it ("met Anna"), and Δ comes close to a suppression's. 002's sanitisation
  (entity-type tokens) loses far more than its pseudonymisation too (Table 4: Δ −0.45 to −0.62
  against −0.09 to −0.23);
- a suppressed span (replaced by "") leaves no token to tag: with every span suppressed M' never
  sees an entity and predicts none, downstream_f1 = 0 and Δ = downstream_f1_original;
- a [FAILED] pick is tagged like any replacement (the token stands in the document);
- over-masking: text the run changed outside its spans (a system's own detections, where the view
  places them) is tagged O like all text outside the spans: M' trains on the document as the system
  wrote it, so over-masking costs it context, never adds an entity it must learn.
Only the spans a run replaced (the frame's rows) are entities, in the original text too, so M and
M' answer the same question. The documents are those the frame holds (each with at least one
replaced span). A run over fewer than two documents gets NaN.

Training is cached (the metric context's "results" cache, on disk under cache_dir()/metrics/ unless
MetricConfig.cache is False): each fold's counts are keyed by the tagger's settings and the training
and test sequences themselves, which name the corpus, the run's replacements and the fold, so the
baseline M is trained once per corpus and fold and shared by every run, and a second report over
the same runs trains nothing.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

import pandas as pd

from workbench.metrics.backends.cache import content_hash
from workbench.metrics.backends.downstream_model import (
    MODEL_ID,
    EntityCounts,
    Sequence_,
    sentence_sequences,
    train_and_score,
)
from workbench.metrics.base import HIGHER, LOWER, MetricInfo
from workbench.metrics.metric_frame import DocView, document_views, runs_of
from workbench.text.sentences import merge_across_spans, split_sentences

FAMILY = "downstream"
# What of MetricConfig.describe() it reads, the models it loads (workbench.metrics.model_use).
MODEL_SETTINGS = ("folds", "seed")
SOURCE = "002 §4 (downstream utility, NER)"
METRICS = (
    MetricInfo("downstream_f1_original", "F1 orig.", FAMILY, 0, 1, HIGHER, SOURCE,
               "entity micro-F1 on original held-out documents of a CRF trained on the original documents "
               "(cross-validated by document): the ceiling for downstream_f1"),
    MetricInfo("downstream_f1", "F1 pseud.", FAMILY, 0, 1, HIGHER, SOURCE,
               "entity micro-F1 on original held-out documents of the same CRF trained on the run's "
               "pseudonymised documents"),
    MetricInfo("downstream_delta_f1", "ΔF1", FAMILY, -1, 1, LOWER, SOURCE,
               "downstream_f1_original − downstream_f1: the F1 lost by training on pseudonymised text "
               "(0 = utility kept; 002's Δ with the sign turned)"),
)
_NAMES = [m.name for m in METRICS]


def document_folds(doc_ids, folds: int) -> dict[str, int]:
    """doc id -> fold in range(min(folds, number of documents)): sorted by the SHA-256 of the id,
    dealt round-robin (fixed by the ids; every fold non-empty)."""
    ordered = sorted(set(doc_ids), key=lambda d: (hashlib.sha256(d.encode()).hexdigest(), d))
    k = min(folds, len(ordered))
    return {doc_id: n % k for n, doc_id in enumerate(ordered)}


@lru_cache(maxsize=1024)
def _original_sentences(text: str, lang: str, spans: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    return tuple(merge_across_spans(split_sentences(text, lang), spans))


def training_sequences(view: DocView, labels) -> tuple[list[Sequence_], list[Sequence_]]:
    """(original, pseudonymised) sentence sequences of one document, the spans' labels carried
    onto the text placed for them. The original's sentences are cut as for any run (never at a
    system's own detections, which may end a view's sentences elsewhere), so M's training and
    test text is the same for every run of the corpus."""
    original = sentence_sequences(view.text, [(a, b, lab) for (a, b), lab in zip(view.spans, labels)],
                                  _original_sentences(view.text, view.lang, view.spans))
    pseudonymised = sentence_sequences(view.pseudo_text, [(a, b, lab) for (a, b), lab in zip(view.placed, labels)],
                                       view.pseudo_sentences)
    return original, pseudonymised


def _serialised(sequences: list[Sequence_]) -> list[str]:
    return ["\t".join(tokens) + "\n" + "\t".join(tags) for tokens, tags in sequences]


def fold_counts(cache, train: list[Sequence_], test: list[Sequence_]) -> EntityCounts:
    """Counts of the tagger trained on `train`, tested on `test`; cached by both and MODEL_ID."""
    key = "downstream:" + content_hash([MODEL_ID, *_serialised(train), "\0test", *_serialised(test)])
    hit = cache.get_many([key])
    if key in hit:
        return EntityCounts(*hit[key])
    counts = train_and_score(train, test)
    cache.put_many({key: [counts.true_positives, counts.false_positives, counts.false_negatives]})
    return counts


def run_scores(documents: dict[str, tuple[list[Sequence_], list[Sequence_]]], folds: int, cache) -> dict[str, float]:
    """The family's three values for one run: documents maps doc id -> (original, pseudonymised)
    sequences, in the order training reads them."""
    if len(documents) < 2:
        return dict.fromkeys(_NAMES, float("nan"))
    fold_of = document_folds(documents, folds)
    baseline, pseudonymised = EntityCounts(), EntityCounts()
    for fold in sorted(set(fold_of.values())):
        test = [s for d, (original, _) in documents.items() if fold_of[d] == fold for s in original]
        train_original = [s for d, (original, _) in documents.items() if fold_of[d] != fold for s in original]
        train_pseudo = [s for d, (_, pseudo) in documents.items() if fold_of[d] != fold for s in pseudo]
        baseline += fold_counts(cache, train_original, test)
        pseudonymised += fold_counts(cache, train_pseudo, test)
    return {"downstream_f1_original": baseline.f1, "downstream_f1": pseudonymised.f1,
            "downstream_delta_f1": baseline.f1 - pseudonymised.f1}


def run_documents(frame: pd.DataFrame) -> dict[str, dict[str, tuple[list[Sequence_], list[Sequence_]]]]:
    """run id -> doc id -> (original, pseudonymised) sequences, in frame order."""
    out: dict[str, dict[str, tuple[list[Sequence_], list[Sequence_]]]] = {}
    for view in document_views(frame):
        labels = frame.loc[view.rows, "label"].tolist()
        out.setdefault(view.run_id, {})[view.doc_id] = training_sequences(view, labels)
    return out


def compute(frame: pd.DataFrame, context) -> pd.DataFrame:
    cache, folds = context.cache("results"), context.config.folds
    values = {run_id: run_scores(documents, folds, cache) for run_id, documents in run_documents(frame).items()}
    return pd.DataFrame.from_dict(values, orient="index", columns=_NAMES).reindex(runs_of(frame)).astype(float)
