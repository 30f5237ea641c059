"""The users' Hugging Face paths (003's BERT classifier, a seq2seq summariser) run end to end.

No pretrained model can be downloaded here, so each test builds a tiny randomly
initialised model with a word-level vocabulary in tmp_path and passes its local path,
exactly as a user passes a local copy of google-bert/bert-base-cased or
SEBIS/legal_t5_small_summ_en. The scores of random models mean nothing; the tests check
that training, prediction, generation and caching work and that a missing model fails
with a clear message.
"""

from __future__ import annotations

import re

import pytest

from tests.metrics.conftest import make_context

pytestmark = pytest.mark.slow


def _vocab(tmp_path, texts):
    words = sorted({w for t in texts for w in re.findall(r"\w+|[^\w\s]", t.lower())})
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + words
    (tmp_path / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    from transformers import BertTokenizerFast
    tokenizer = BertTokenizerFast(vocab_file=str(tmp_path / "vocab.txt"), do_lower_case=True)
    tokenizer.save_pretrained(tmp_path)
    return len(vocab)


def test_bert_classifier_from_a_local_path(tmp_path, run_a):
    from transformers import BertConfig, BertForSequenceClassification

    from workbench.metrics import detectability
    from workbench.metrics.backends.classifiers import HFSequenceClassifier, make_classifier_factory
    _, frame = run_a
    texts, labels, groups = next(iter(detectability.samples(frame).values()))
    size = _vocab(tmp_path, texts)
    config = BertConfig(vocab_size=size, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=37, max_position_embeddings=128, num_labels=2)
    BertForSequenceClassification(config).save_pretrained(tmp_path)
    classifier_id, factory = make_classifier_factory(str(tmp_path))
    assert classifier_id.startswith("hf:") and isinstance(factory(), HFSequenceClassifier)
    accuracy = detectability.cross_validated_accuracy(texts, labels, groups, factory, 3)
    assert 0.0 <= accuracy <= 1.0
    context = make_context(classifier=str(tmp_path), folds=3)
    first = detectability.compute(frame, context)["classifier_accuracy"].iat[0]
    again = detectability.compute(frame, context)["classifier_accuracy"].iat[0]  # from the result cache
    assert first == again == pytest.approx(accuracy)


def test_paper_models_are_named_and_a_missing_model_fails_clearly(tmp_path):
    from workbench.infra.errors import WorkbenchError
    from workbench.metrics.backends.classifiers import make_classifier_factory
    from workbench.metrics.backends.summarisers import make_summariser
    classifier_id, factory = make_classifier_factory("bert")
    assert "google-bert/bert-base-cased" in classifier_id and factory().model_name == "google-bert/bert-base-cased"
    assert make_summariser("SEBIS/legal_t5_small_summ_en").model == "SEBIS/legal_t5_small_summ_en"
    # A local path that does not exist fails at once, with the way out in the message.
    _, factory = make_classifier_factory(str(tmp_path / "missing"))
    with pytest.raises(WorkbenchError, match="cannot load the classifier .*pass a local path"):
        factory().fit(["a", "b"], [0, 1])


def test_seq2seq_summariser_from_a_local_path(tmp_path, run_a):
    from transformers import T5Config, T5ForConditionalGeneration

    from workbench.metrics.rouge import document_scores
    _, frame = run_a
    size = _vocab(tmp_path, list(frame["text"].unique()) + list(frame["pseudonym"]))
    config = T5Config(vocab_size=size, d_model=32, d_ff=64, d_kv=16, num_layers=1, num_decoder_layers=1,
                      num_heads=2, pad_token_id=0, eos_token_id=3, decoder_start_token_id=0)
    T5ForConditionalGeneration(config).save_pretrained(tmp_path)
    from workbench.metrics.backends.summarisers import HFSeq2SeqSummariser, make_summariser
    assert isinstance(make_summariser(str(tmp_path)), HFSeq2SeqSummariser)  # what --summariser PATH builds
    context = make_context()
    context.set_summariser(HFSeq2SeqSummariser(str(tmp_path), max_new_tokens=12))  # short: random weights
    scores = document_scores(frame, context)
    assert len(scores) == 3 and scores[["rouge1", "rougeLsum"]].stack().between(0, 1).all()
    assert context.summariser().computed == 6  # 3 originals + 3 pseudonymised documents
    document_scores(frame, context)
    assert context.summariser().computed == 6  # second time from the cache
