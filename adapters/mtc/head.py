"""The extended output layer: token rows of the MLM's decoder plus one row per phrase.

    scores = transform(hidden) @ [W_tokens; W_phrases]^T + [b_tokens; b_phrases]

W_tokens/b_tokens are the MLM's own decoder (tied to the input embeddings in BERT and
RoBERTa) and are never trained here, so the encoder cannot change through them. The
phrase rows are the only new parameters (000 §2, EMAT). Works for the BERT family
(`cls.predictions`), the RoBERTa family (`lm_head`: RoBERTa, XLM-R, Longformer) and
DistilBERT.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from workbench.adapters.mtc.settings import INITS
from workbench.infra.errors import WorkbenchError


class _LmHeadTransform(nn.Module):
    """RoBERTa-style lm_head without its decoder: layer_norm(gelu(dense(h)))."""

    def __init__(self, dense: nn.Module, layer_norm: nn.Module) -> None:
        super().__init__()
        self.dense = dense
        self.layer_norm = layer_norm

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        return self.layer_norm(nn.functional.gelu(self.dense(hidden)))


class _DistilTransform(nn.Module):
    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        self.dense, self.act, self.norm = model.vocab_transform, model.activation, model.vocab_layer_norm

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        return self.norm(self.act(self.dense(hidden)))


def head_parts(model: nn.Module) -> tuple[nn.Module, nn.Linear]:
    """(transform, decoder) of a *ForMaskedLM, so that logits = decoder(transform(hidden))."""
    decoder = model.get_output_embeddings()
    if hasattr(model, "cls") and hasattr(model.cls, "predictions"):
        return model.cls.predictions.transform, decoder
    lm = getattr(model, "lm_head", None)
    if lm is not None and hasattr(lm, "dense") and hasattr(lm, "layer_norm"):
        return _LmHeadTransform(lm.dense, lm.layer_norm), decoder
    if hasattr(model, "vocab_transform") and hasattr(model, "vocab_layer_norm"):
        return _DistilTransform(model), decoder
    raise WorkbenchError(f"EMAT does not know the output head of {type(model).__name__}; "
                         "supported: BERT, RoBERTa/XLM-R/Longformer and DistilBERT masked LMs")


class ExtendedHead(nn.Module):
    """Scores over the token vocabulary followed by the phrases (index V + p is phrase p)."""

    def __init__(self, model: nn.Module, n_phrases: int) -> None:
        super().__init__()
        transform, decoder = head_parts(model)
        self.transform = transform
        # Kept out of this module's parameters on purpose: they belong to the MLM.
        self._decoder = [decoder]
        hidden = decoder.weight.shape[1]
        self.n_tokens = decoder.weight.shape[0]
        self.phrase_weight = nn.Parameter(torch.zeros(n_phrases, hidden))
        self.phrase_bias = nn.Parameter(torch.zeros(n_phrases))

    @property
    def token_weight(self) -> torch.Tensor:
        return self._decoder[0].weight

    @property
    def token_bias(self) -> torch.Tensor:
        bias = self._decoder[0].bias
        return bias if bias is not None else torch.zeros(self.n_tokens)

    @property
    def n_phrases(self) -> int:
        return self.phrase_weight.shape[0]

    def token_scores(self, features: torch.Tensor) -> torch.Tensor:
        return features @ self.token_weight.T + self.token_bias

    def phrase_scores(self, features: torch.Tensor) -> torch.Tensor:
        return features @ self.phrase_weight.T + self.phrase_bias

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        """hidden: [n, H] encoder states at the masks → [n, V + P] scores."""
        features = self.transform(hidden)
        return torch.cat([self.token_scores(features), self.phrase_scores(features)], dim=-1)

    def initialise(self, how: str, phrase_token_ids: Sequence[Sequence[int]], *, std: float,
                   generator: torch.Generator) -> None:
        """subword: each row (and bias) is the mean of its sub-words' decoder rows, so a
        phrase starts where its pieces point; random: N(0, std), bias 0 (the reference)."""
        if how not in INITS:
            raise ValueError(f"init must be one of {', '.join(INITS)}, not {how!r}")
        if len(phrase_token_ids) != self.n_phrases:
            raise ValueError("one token-id sequence per phrase row is needed")
        with torch.no_grad():
            if how == "random":
                self.phrase_weight.normal_(0.0, std, generator=generator)
                self.phrase_bias.zero_()
                return
            weight, bias = self.token_weight, self.token_bias
            for p, ids in enumerate(phrase_token_ids):
                index = torch.tensor(list(ids), dtype=torch.long)
                self.phrase_weight[p] = weight[index].mean(0)
                self.phrase_bias[p] = bias[index].mean()
