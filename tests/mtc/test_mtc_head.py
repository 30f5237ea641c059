"""The extended head over BERT, RoBERTa and DistilBERT: its token part is exactly the MLM's own
head, and the two phrase-row initialisations do what they say. Tiny random models, no files."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from workbench.adapters.mtc.head import ExtendedHead  # noqa: E402


def tiny(kind):
    common = dict(vocab_size=50, hidden_size=16, num_attention_heads=2, intermediate_size=32,
                  max_position_embeddings=40)
    torch.manual_seed(0)
    if kind == "bert":
        return transformers.BertForMaskedLM(transformers.BertConfig(num_hidden_layers=1, **common))
    if kind == "roberta":
        return transformers.RobertaForMaskedLM(transformers.RobertaConfig(num_hidden_layers=1, **common))
    return transformers.DistilBertForMaskedLM(transformers.DistilBertConfig(
        vocab_size=50, dim=16, n_layers=1, n_heads=2, hidden_dim=32, max_position_embeddings=40))


@pytest.mark.parametrize("kind", ["bert", "roberta", "distilbert"])
def test_token_scores_equal_the_models_own_logits(kind):
    model = tiny(kind).eval()
    # Make the decoder bias non-zero, so a head that forgot it would be caught.
    with torch.no_grad():
        model.get_output_embeddings().bias.normal_()
    head = ExtendedHead(model, n_phrases=3)
    ids = torch.tensor([[2, 7, 9, 11, 3]])
    with torch.no_grad():
        logits = model(input_ids=ids).logits[0]
        hidden = model.base_model(input_ids=ids)[0][0]
        scores = head(hidden)
    assert scores.shape == (5, 50 + 3)
    torch.testing.assert_close(scores[:, :50], logits, rtol=1e-5, atol=1e-5)


def test_subword_init_is_the_mean_of_the_pieces_and_random_init_is_small():
    model = tiny("bert")
    head = ExtendedHead(model, n_phrases=2)
    pieces = [(4, 5), (6, 7, 8)]
    head.initialise("subword", pieces, std=0.02, generator=torch.Generator().manual_seed(1))
    w, b = model.get_output_embeddings().weight, model.get_output_embeddings().bias
    torch.testing.assert_close(head.phrase_weight[1], w[[6, 7, 8]].mean(0))
    torch.testing.assert_close(head.phrase_bias[0], b[[4, 5]].mean())
    head.initialise("random", pieces, std=0.02, generator=torch.Generator().manual_seed(1))
    assert float(head.phrase_weight.detach().std()) == pytest.approx(0.02, rel=0.6)
    assert float(head.phrase_bias.detach().abs().sum()) == 0.0
    with pytest.raises(ValueError):
        head.initialise("zeros", pieces, std=0.02, generator=torch.Generator())


def test_head_parameters_are_only_the_phrase_rows_and_the_transform():
    model = tiny("bert")
    head = ExtendedHead(model, n_phrases=4)
    names = {n for n, _ in head.named_parameters()}
    assert {"phrase_weight", "phrase_bias"} <= names
    # The tied token rows (= the encoder's input embeddings) are not the head's to train.
    assert not any("decoder" in n or "word_embeddings" in n for n in names)
