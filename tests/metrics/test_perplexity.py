"""Perplexity between original and pseudonymised text (workbench/metrics/perplexity.py, paper 000 §4),
worked out by hand on a tiny seeded GPT-2: the NLL against a manual torch computation, the
bootstrap interval on fixed values, the original reference run's baseline, a suppressed span,
an over-masked document, and the caches of a second report."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from tests.helpers.corpus import document_with_mentions
from tests.helpers.tiny_models import build_tiny_gpt2
from tests.metrics.conftest import add_run
from workbench.data_model import Corpus
from workbench.metrics import MetricConfig, MetricContext, metric_frame
from workbench.metrics.backends.perplexity_model import document_nlls, fine_tune, load_causal_lm
from workbench.metrics.perplexity import (
    METRICS,
    ORIGINAL_ON_PSEUDO,
    PSEUDO_ON_ORIGINAL,
    PerplexitySettings,
    bootstrap_interval,
    compute,
    is_held_out,
    perplexity,
)

# held_out=0.5 holds out doc-2 and doc-6 (sha256 fractions 0.40 and 0.47); doc-1, 3, 4, 5 train.
SETTINGS = PerplexitySettings(held_out=0.5, max_tokens=40, steps=3, batch_size=2, bootstrap=200)
TEXTS = {
    "doc-1": ("Anna Berg was born in Oslo in 1975.", [("Anna Berg", "PERSON"), ("Oslo", "LOC")]),
    "doc-2": ("Jan Nowak lives in Warsaw with his family.", [("Jan Nowak", "PERSON"), ("Warsaw", "LOC")]),
    "doc-3": ("The court in Paris heard Eva Lund in 2001.", [("Paris", "LOC"), ("Eva Lund", "PERSON")]),
    "doc-4": ("Olle works for Nordbank in Bergen.", [("Olle", "PERSON"), ("Nordbank", "ORG")]),
    "doc-5": ("Maria Ek moved to Lund in 1999.", [("Maria Ek", "PERSON"), ("Lund", "LOC")]),
    "doc-6": ("Per Holm", [("Per Holm", "PERSON")]),  # the whole document one span
}
HELD, TRAIN = ["doc-2", "doc-6"], ["doc-1", "doc-3", "doc-4", "doc-5"]


@pytest.fixture(scope="module")
def tiny_gpt2(tmp_path_factory):
    return build_tiny_gpt2(tmp_path_factory.mktemp("tiny-gpt2"))


@pytest.fixture
def corpus():
    return Corpus("ppl", "tests/metrics/test_perplexity.py", tuple(
        document_with_mentions("ppl", d, text, mentions) for d, (text, mentions) in TEXTS.items()))


def context(model, **config) -> MetricContext:
    config.setdefault("cache", False)
    return MetricContext(MetricConfig(causal_lm=str(model), **config))


def manual_perplexity(model_and_tokenizer, texts):
    """exp(mean NLL) over every predicted token, with torch by hand."""
    import torch
    tokenizer, model = model_and_tokenizer
    total, count = 0.0, 0
    for text in texts:
        ids = [tokenizer.eos_token_id, *tokenizer(text)["input_ids"][:SETTINGS.max_tokens]]
        if len(ids) < 2:
            continue
        with torch.no_grad():
            logp = torch.log_softmax(model(torch.tensor([ids])).logits[0].double(), dim=-1)
        total -= sum(float(logp[i, ids[i + 1]]) for i in range(len(ids) - 1))
        count += len(ids) - 1
    return math.exp(total / count)


def test_the_split_holds_out_the_documents_the_tests_rely_on():
    assert [d for d in TEXTS if is_held_out(d, 0.5)] == HELD
    shares = [is_held_out(f"d{i}", 0.2) for i in range(2000)]
    assert 0.17 < sum(shares) / len(shares) < 0.23  # the stated share, from a fixed hash
    assert not any(is_held_out(d, 0.0) for d in TEXTS) and all(is_held_out(d, 1.0) for d in TEXTS)


def test_document_nll_is_the_manual_torch_sum(tiny_gpt2):
    tokenizer, model = load_causal_lm(tiny_gpt2)
    texts = ["Anna Berg was born in Oslo.", "Jan Nowak lives in Warsaw with his family.", ""]
    scored = document_nlls(tokenizer, model, texts, SETTINGS.max_tokens)  # batched with padding
    for text, (nll, tokens) in zip(texts[:2], scored):
        assert tokens == len(tokenizer(text)["input_ids"])
        assert math.exp(nll / tokens) == pytest.approx(manual_perplexity((tokenizer, model), [text]), rel=1e-6)
    assert scored[2] == (0.0, 0)  # nothing to predict
    # exp of the mean NLL equals what the model's own loss says for one text
    import torch
    ids = torch.tensor([[tokenizer.eos_token_id, *tokenizer(texts[0])["input_ids"]]])
    with torch.no_grad():
        assert scored[0][0] / scored[0][1] == pytest.approx(model(ids, labels=ids).loss.item(), rel=1e-5)


def test_perplexity_pools_tokens_over_documents():
    assert perplexity([2.0, 6.0], [1, 3]) == pytest.approx(math.exp(8 / 4))  # not the mean of e^2 and e^2
    assert perplexity([2.0, 0.0], [2, 0]) == pytest.approx(math.e)  # a document without tokens adds nothing
    assert math.isnan(perplexity([0.0], [0]))


def test_bootstrap_interval_by_hand():
    # Two documents of one token each (per-token NLL 1 and 3): a resample is {a, a}, {a, b} or
    # {b, b} with probabilities 1/4, 1/2, 1/4, so the 2.5th and 97.5th percentiles are e^1 and e^3.
    low, high = bootstrap_interval([1.0, 3.0], [1, 1], resamples=1000, seed=13, min_documents=2)
    assert (low, high) == (pytest.approx(math.e), pytest.approx(math.e ** 3))
    # Every document at a per-token NLL of 2: every resample reads e^2; the empty one is left out.
    assert bootstrap_interval([2.0, 4.0, 6.0, 0.0], [1, 2, 3, 0], 200, 13, min_documents=3) == \
        (pytest.approx(math.e ** 2),) * 2
    assert (bootstrap_interval([1.0, 3.0], [1, 1], 50, 7, 2)
            == bootstrap_interval([1.0, 3.0], [1, 1], 50, 7, 2))  # seeded
    assert all(math.isnan(v) for v in bootstrap_interval([0.0], [0], 10, 1, min_documents=1))


def test_too_few_held_out_documents_give_no_interval():
    # One document resampled is that document every time: no interval rather than one of one point
    # (issue 42); the default asks for MIN_INTERVAL_DOCUMENTS documents with tokens.
    from workbench.metrics.perplexity import MIN_INTERVAL_DOCUMENTS
    few = [1.0 + n for n in range(MIN_INTERVAL_DOCUMENTS - 1)]
    assert all(math.isnan(v) for v in bootstrap_interval(few, [1] * len(few), 200, 13))
    enough = [*few, 9.0]
    low, high = bootstrap_interval(enough, [1] * len(enough), 200, 13)
    assert low < high


def pseudonyms(corpus, pick) -> dict:
    """doc_id -> one replacement per span: pick(original span text)."""
    return {d.doc_id: [pick(s.text) for s in d.spans] for d in corpus.documents}


def test_the_original_reference_run_reads_the_original_lms_baseline(store, corpus, tiny_gpt2):
    run = add_run(store, corpus, pseudonyms(corpus, lambda s: s), name="original")
    ctx = context(tiny_gpt2)
    row = compute(metric_frame(store, [run]), ctx, SETTINGS).loc[run]
    # Its pseudonymised text is the original: one LM, fine-tuned once, serves both columns.
    assert ctx.causal_lms.trained == 1
    assert row[PSEUDO_ON_ORIGINAL] == row[ORIGINAL_ON_PSEUDO]
    train = [TEXTS[d][0] for d in TRAIN]
    original_lm = fine_tune(tiny_gpt2, train, SETTINGS)
    assert row[PSEUDO_ON_ORIGINAL] == pytest.approx(manual_perplexity(original_lm, [TEXTS[d][0] for d in HELD]),
                                                    rel=1e-6)
    # Two documents held out: too few for an interval (MIN_INTERVAL_DOCUMENTS)
    assert math.isnan(row[f"{PSEUDO_ON_ORIGINAL}_low"]) and math.isnan(row[f"{PSEUDO_ON_ORIGINAL}_high"])


def test_a_suppressed_span_and_an_over_masked_document(store, corpus, tiny_gpt2):
    # Every span suppressed: a suppressed span leaves nothing ("Jan Nowak lives in Warsaw with his
    # family." reads " lives in  with his family."), and doc-6, one span over the whole document,
    # reads "": nothing to predict, so it is left out of the held-out pseudonymised score (its
    # original is still scored by the pseudonymised LM).
    run = add_run(store, corpus, pseudonyms(corpus, lambda s: ""), name="suppress")
    row = compute(metric_frame(store, [run]), context(tiny_gpt2), SETTINGS).loc[run]
    train = [TEXTS[d][0] for d in TRAIN]
    original_lm, pseudo_lm = fine_tune(tiny_gpt2, train, SETTINGS), fine_tune(tiny_gpt2, [
        " was born in  in 1975.", "The court in  heard  in 2001.", " works for  in Bergen.", " moved to  in 1999."],
        SETTINGS)
    assert row[ORIGINAL_ON_PSEUDO] == pytest.approx(manual_perplexity(original_lm, [" lives in  with his family."]),
                                                    rel=1e-6)
    assert row[PSEUDO_ON_ORIGINAL] == pytest.approx(manual_perplexity(pseudo_lm, [TEXTS[d][0] for d in HELD]),
                                                    rel=1e-6)


def test_a_second_report_fine_tunes_and_scores_nothing(store, corpus, tiny_gpt2, tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path / "cache"))
    runs = [add_run(store, corpus, pseudonyms(corpus, lambda s: s.upper()), name="upper"),
            add_run(store, corpus, pseudonyms(corpus, lambda s: "X"), name="x")]
    frame = metric_frame(store, runs)
    first = context(tiny_gpt2, cache=True)
    values = compute(frame, first, SETTINGS)
    assert first.causal_lms.trained == 3  # the corpus's original LM once, each run's own once
    second = context(tiny_gpt2, cache=True)
    import workbench.metrics.backends.perplexity_model as model_module
    monkeypatch.setattr(model_module, "load_causal_lm", lambda path: pytest.fail(f"loaded {path}"))
    again = compute(frame, second, SETTINGS)
    assert second.causal_lms.trained == 0
    assert again.equals(values)
    # A changed setting is another model: it is fine-tuned anew, never served the old scores.
    monkeypatch.undo()
    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path / "cache"))
    third = context(tiny_gpt2, cache=True)
    compute(frame, third, replace(SETTINGS, steps=4))
    assert third.causal_lms.trained == 3


def test_metric_declarations():
    assert [m.name for m in METRICS] == [PSEUDO_ON_ORIGINAL, f"{PSEUDO_ON_ORIGINAL}_low", f"{PSEUDO_ON_ORIGINAL}_high",
                                         ORIGINAL_ON_PSEUDO, f"{ORIGINAL_ON_PSEUDO}_low", f"{ORIGINAL_ON_PSEUDO}_high"]
    assert all(m.low == 1 and m.high is None for m in METRICS)
