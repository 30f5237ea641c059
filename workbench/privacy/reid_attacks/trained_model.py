"""The trained attacker's model: the token windows it reads and the window classifier over them.

A text is cut into overlapping windows of at most `window` tokens, special tokens included
(TAE: "100-25"); the classifier reads one window and gives one logit per individual.
Training it is workbench.privacy.reid_attacks.trained_training; attacking with it,
workbench.privacy.reid_attacks.trained.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from workbench.infra.errors import MissingExtra, WorkbenchError

HEAD_FILE = "head.safetensors"


def load_torch():
    try:
        import torch
        import transformers
    except ModuleNotFoundError as exc:
        raise MissingExtra("the trained re-identification attacker", "mlm", exc.name) from None
    transformers.utils.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()
    return torch


def special_frame(tokenizer) -> tuple[list[int], list[int]]:
    """The special tokens the tokenizer puts before and after one sequence ([CLS] … [SEP], <s> … </s>)."""
    plain = tokenizer("a", add_special_tokens=False)["input_ids"]
    framed = tokenizer("a", add_special_tokens=True)["input_ids"]
    for at in range(len(framed) - len(plain) + 1):
        if framed[at:at + len(plain)] == plain:
            return framed[:at], framed[at + len(plain):]
    raise WorkbenchError(f"cannot tell where {type(tokenizer).__name__} puts its special tokens")


def windows(tokenizer, text: str, window: int, overlap: int) -> list[list[int]]:
    """Token windows of `text` (special tokens included), each sharing `overlap` tokens with the one before."""
    ids = tokenizer(text, add_special_tokens=False, truncation=False)["input_ids"]
    prefix, suffix = special_frame(tokenizer)
    body = window - len(prefix) - len(suffix)
    stride = body - overlap
    starts = [0]
    while starts[-1] + body < len(ids):
        starts.append(starts[-1] + stride)
    return [prefix + ids[s:s + body] + suffix for s in starts]


def spread(items: list, n: int) -> list:
    """At most n items, evenly spaced (first and last kept)."""
    if n <= 0 or len(items) <= n:
        return items
    picks = np.linspace(0, len(items) - 1, n).round().astype(int)
    return [items[i] for i in picks]


def batch(torch, rows: list[list[int]], pad_id: int):
    width = max(len(r) for r in rows)
    ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for i, r in enumerate(rows):
        ids[i, :len(r)] = torch.tensor(r, dtype=torch.long)
        mask[i, :len(r)] = 1
    return ids, mask


_CLASSIFIER = None


def classifier(torch):
    """The window classifier (a class made on first use: torch is imported only then).

    The encoder (any Hugging Face encoder: BERT, DistilBERT, RoBERTa …) reads a window; the
    head is one linear layer over the concatenation of the first token's state and the mean of
    all the window's token states. TAE's classifier reads the first token through the
    model's own pooler; here the pooler of an MLM checkpoint (the offline encoder) would be
    new and random, and measured on the frozen offline encoder (TAB, 24 windows per
    individual, logistic regression) the first token alone re-identified 0.61 of the original
    documents and the mean alone 0.54, so the head gets both."""
    global _CLASSIFIER
    if _CLASSIFIER is not None:
        return _CLASSIFIER
    from safetensors.torch import load_file, save_file
    from transformers import AutoModel
    module: Any = torch.nn.Module  # a base class from the module handed in (mypy reads torch as Any)

    class WindowClassifier(module):
        def __init__(self, encoder, n_classes: int) -> None:
            super().__init__()
            self.encoder = encoder
            self.head = torch.nn.Linear(2 * encoder.config.hidden_size, n_classes)

        def features(self, ids, mask):
            return self.pool(self.encoder(input_ids=ids, attention_mask=mask).last_hidden_state, mask)

        def pool(self, states, mask):
            """What the head reads from the last layer's states: the first token's and the mean."""
            weights = mask.unsqueeze(-1).to(states.dtype)
            mean = (states * weights).sum(1) / weights.sum(1).clamp(min=1)
            return torch.cat([states[:, 0], mean], dim=1)

        def forward(self, ids, mask):
            return self.head(self.features(ids, mask))

        def save(self, path: Path) -> None:
            self.encoder.save_pretrained(path)
            save_file({k: v.contiguous() for k, v in self.head.state_dict().items()}, str(path / HEAD_FILE))

        @classmethod
        def load(cls, path: Path, n_classes: int):
            model = cls(AutoModel.from_pretrained(path), n_classes)
            model.head.load_state_dict(load_file(str(path / HEAD_FILE)))
            return model

    _CLASSIFIER = WindowClassifier
    return _CLASSIFIER
