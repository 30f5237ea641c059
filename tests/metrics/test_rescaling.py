"""Similarities rescaled against chance (workbench/metrics/similarity_baseline.py, issue 15 item 4).

Hand-made cases use the bag-of-words embedder (cosines computable by hand) and plugged-in
baselines; the baseline's drawing and caching use a hash embedder; the last test uses the real
MiniLM and e5 embedders on the shipped Swedish and English corpora.
"""

from __future__ import annotations

import hashlib
import math

import numpy as np
import pytest

from tests.metrics.conftest import make_context
from workbench.metrics import MetricConfig, MetricContext, compute_metrics, metric_infos
from workbench.metrics.backends.cache import JsonCache, VectorCache
from workbench.metrics.backends.embedders import CachedEmbedder
from workbench.metrics.similarity import pair_cosines
from workbench.metrics.similarity_baseline import (
    SimilarityBaseline,
    compute_baseline,
    pud_content_words,
    rescale,
    unrelated_pairs,
)

EN_B, SV_B = SimilarityBaseline(word=0.5, sentence=0.2), SimilarityBaseline(word=0.25, sentence=0.6)


def plugged(**config):
    context = make_context(**config)
    context.set_similarity_baseline("en", EN_B)
    context.set_similarity_baseline("sv", SV_B)
    return context


def test_rescale_maps_the_baseline_to_zero_and_one_to_one():
    assert rescale(np.array([0.8, 1.0, 0.9, 0.0]), 0.8) == pytest.approx([0.0, 1.0, 0.5, -4.0])


def test_pair_cosines_rescale_model_cosines_and_keep_identity_and_suppression():
    # bag of words: "Anna" vs "Anna Lund" = 1/√2, "x" vs "y" = 0; identical = 1; suppressed = 0 (chance).
    cos = pair_cosines(make_context(), "en", ["Anna Berg", "Anna", "x", "Anna"], ["Anna Berg", "Anna Lund", "y", ""],
                       baseline=0.5)
    assert cos == pytest.approx([1.0, (1 / math.sqrt(2) - 0.5) / 0.5, -1.0, 0.0])


def test_run_a_word_similarity_rescaled_per_language_and_raw_kept(run_a):
    # Run A (test_golden): en 14 spans (Oslo and Eva Nowak identical: 1; Jan Kowalski/Jan Nowak 1/2;
    # 11 others 0, [FAILED] included), sv 7 spans all at 0. Rescaled: en b=0.5 → 1, 1, 0, 11 × -1;
    # sv b=0.25 → 7 × -1/3. tiny_corpus mixes languages: one row per language, each with its own
    # baseline, never a mean across them (workbench.metrics.languages).
    run_id, frame = run_a
    table = compute_metrics(frame, plugged(), families=("similarity",), originals=False)
    assert list(table.index) == [f"{run_id}@en", f"{run_id}@sv"]
    en, sv = table.loc[f"{run_id}@en"], table.loc[f"{run_id}@sv"]
    assert en["similarity_word"] == pytest.approx((2 + 0 - 11) / 14, abs=1e-6)
    assert sv["similarity_word"] == pytest.approx(-1 / 3, abs=1e-6)
    assert en["similarity_word_raw"] == pytest.approx(2.5 / 14, abs=1e-6) and sv["similarity_word_raw"] == 0
    assert (en["similarity_word_baseline"], en["similarity_sentence_baseline"]) == pytest.approx((0.5, 0.2))
    assert (sv["similarity_word_baseline"], sv["similarity_sentence_baseline"]) == pytest.approx((0.25, 0.6))
    # Sentences: every sentence of run A has a modelled cosine below 1 or is identical; rescaling lowers the mean.
    assert en["similarity_sentence"] < en["similarity_sentence_raw"]
    unscaled = compute_metrics(frame, make_context(), families=("similarity",), originals=False)
    assert table["similarity_sentence_raw"].tolist() == pytest.approx(unscaled["similarity_sentence"].tolist())
    # No baseline: nothing moves.
    assert unscaled["similarity_word"].tolist() == unscaled["similarity_word_raw"].tolist()


def test_tps_takes_max_zero_after_rescaling(run_a):
    # With a word baseline above every non-identical cosine of run A (≤ 1/2), only identical spans
    # keep their information: TPS falls; tps_raw is the unrescaled TPS.
    _, frame = run_a
    context = make_context()
    for lang in ("en", "sv"):
        context.set_similarity_baseline(lang, SimilarityBaseline(word=0.6))
    row = compute_metrics(frame, context, families=("tps",), originals=False).iloc[0]
    unscaled = compute_metrics(frame, make_context(), families=("tps",), originals=False).iloc[0]
    assert row["tps_raw"] == pytest.approx(unscaled["tps"])
    assert 0 <= row["tps"] < row["tps_raw"] <= 1
    # Jan Kowalski → Jan Nowak (1/2) now counts 0, not (0.5 - 0.6) / 0.4 < 0: clipped after rescaling.
    context_low = make_context()
    for lang in ("en", "sv"):
        context_low.set_similarity_baseline(lang, SimilarityBaseline(word=0.4))
    low = compute_metrics(frame, context_low, families=("tps",), originals=False).iloc[0]
    assert row["tps"] < low["tps"] < row["tps_raw"]


def test_raw_values_and_baselines_are_reported(run_a, tmp_path, store):
    import pandas as pd

    from workbench.reports import write_report
    run_id, _ = run_a
    write_report(store, [run_id], tmp_path / "r", formats=("csv",), context=plugged())
    metrics = pd.read_csv(tmp_path / "r" / "metrics.csv")
    for name in ("similarity_word_raw", "similarity_sentence_raw", "tps_raw", "similarity_word_baseline"):
        assert name in metrics.columns and name in metric_infos()
    run = metrics[metrics["run_id"] == f"{run_id}@en"].iloc[0]  # tiny_corpus's English part
    assert run["similarity_word_raw"] == pytest.approx(2.5 / 14, abs=1e-6)
    assert run["similarity_word"] < 0 < run["similarity_word_raw"]


class HashEmbedder:
    """A fixed random unit vector per text (seeded by its hash): distinct texts are unrelated."""

    def __init__(self, id="test:hash"):
        self.id, self.calls = id, 0

    def embed(self, texts):
        self.calls += 1
        return np.stack([np.random.default_rng(int(hashlib.sha256(t.encode()).hexdigest()[:8], 16)).normal(size=32)
                         for t in texts]).astype(np.float32)


def test_unrelated_pairs_are_reproducible_and_never_identical():
    words = pud_content_words("sv")
    assert len(words) > 1000 and words == sorted(set(words))
    a = unrelated_pairs(words, 500, 13)
    assert a == unrelated_pairs(words, 500, 13)
    assert a != unrelated_pairs(words, 500, 14)
    assert all(x != y for x, y in zip(*a))


def test_baseline_is_deterministic_and_cached_under_the_embedder_id(tmp_path):
    cache = JsonCache(tmp_path / "results.sqlite")

    def baseline(embedder, seed=13):
        return compute_baseline(CachedEmbedder(embedder, VectorCache(None)), "en", cache, pairs=200, seed=seed)

    first_embedder, warm_embedder = HashEmbedder(), HashEmbedder()
    first = baseline(first_embedder)
    assert first_embedder.calls > 0 and first.source == "ud-pud:200:13"
    assert baseline(warm_embedder) == first and warm_embedder.calls == 0  # from the results cache
    assert baseline(HashEmbedder()) == baseline(HashEmbedder(), seed=13)
    other_seed = HashEmbedder()
    assert baseline(other_seed, seed=14).word != first.word and other_seed.calls > 0
    # bfloat16 vectors are another embedder id (…@bfloat16): never the float32 baseline's cache entry.
    half = HashEmbedder("test:hash@bfloat16")
    baseline(half)
    assert half.calls > 0
    # Random unit vectors in 32 dimensions: unrelated pairs average about 0.
    assert abs(first.word) < 0.05 and abs(first.sentence) < 0.05


def test_context_keeps_one_baseline_per_language_and_embedder():
    context = MetricContext(MetricConfig(cache=False, baseline_pairs=100))
    embedder = HashEmbedder()
    for lang in ("en", "sv"):
        context.set_embedder(lang, embedder)
    en = context.similarity_baseline("en")
    calls = embedder.calls
    assert context.similarity_baseline("en") is en and embedder.calls == calls
    assert context.similarity_baseline("sv") != en  # the same embedder, another language's pairs
    assert "similarity_baseline=ud-pud:100:13" in context.config.describe()
    assert MetricContext(MetricConfig(similarity_baseline="none")).config.describe().count("similarity_baseline=none")


@pytest.mark.slow
@pytest.mark.parametrize("corpus_name, lang", [("pgv-pii-en", "en"), ("pgv-pii-sv", "sv")])
def test_unrelated_random_words_score_near_zero_with_the_real_embedders(corpus_name, lang):
    # Originals: 150 PII spans of the shipped corpus; replacements: PUD content words drawn with
    # another seed than the baseline's. Raw, e5 gives such Swedish pairs ≈ 0.85; rescaled, both
    # languages read about 0. Uses the shared metrics cache (the baselines cost ~1-2 min cold).
    from workbench.loaders import shipped_corpus
    corpus = shipped_corpus(corpus_name)
    originals = [s.text for d in corpus.documents for s in d.spans][:150]
    words = pud_content_words(lang)
    rng = np.random.default_rng(99)
    replacements = [words[i] for i in rng.integers(0, len(words), size=len(originals))]
    context = MetricContext(MetricConfig())
    baseline = context.similarity_baseline(lang).word
    raw = pair_cosines(context, lang, originals, replacements).mean()
    scaled = pair_cosines(context, lang, originals, replacements, baseline=baseline).mean()
    assert abs(scaled) < 0.15, (raw, baseline, scaled)
    assert abs(raw - scaled) > 0.15  # the raw cosine alone would not have said "chance"
