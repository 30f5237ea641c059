"""Fine-tuning only the top layers of the trained attacker's encoder (`tune_layers`).

With the embeddings and the lower layers frozen, their output for a window never changes, so
it is computed once per training window and kept (float16, about 80 MB per 1,000 windows of 100
tokens for a 384-wide encoder); every fine-tuning step then runs only the top layers and the
head, forward and backward. On MiniLM-L6 with two tuned layers of six a step costs about a
third of a full fine-tuning step (docs/privacy.md gives the measured figures).

The split is checked, not assumed: the encoder's layer stack is found where BERT-like models
(BERT, RoBERTa, MiniLM) keep it (`encoder.layer`), and the top layers run on the kept states
must give the full model's output on a sample batch; otherwise (another architecture, or a
transformers version that calls its layers differently) training falls back to full forward
passes with the lower layers frozen (the same result, slower).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def layer_stack(encoder) -> Any | None:
    """The encoder's list of transformer layers, where BERT-like models keep it; None elsewhere."""
    stack = getattr(getattr(encoder, "encoder", None), "layer", None)
    return stack if stack is not None and len(stack) > 0 else None


def freeze_below(torch, encoder, tune_layers: int) -> list:
    """Freezes every encoder parameter outside the top `tune_layers` layers (0: none frozen);
    returns the parameters left to train. The layers are found by their index in the parameter
    names (`encoder.layer.5.…`, `transformer.layer.5.…`), so any encoder with numbered layers works."""
    import re
    if tune_layers == 0:
        return list(encoder.parameters())
    n_layers = encoder.config.num_hidden_layers
    keep = []
    for name, param in encoder.named_parameters():
        found = re.search(r"layers?\.(\d+)\.", name)
        param.requires_grad_(found is not None and int(found.group(1)) >= n_layers - tune_layers)
        if param.requires_grad:
            keep.append(param)
    return keep


class TopLayers:
    """The top `tune_layers` layers of a BERT-like encoder run on kept lower states."""

    def __init__(self, torch, encoder, tune_layers: int) -> None:
        from transformers.masking_utils import create_bidirectional_mask
        self.torch, self.encoder = torch, encoder
        self.cut = encoder.config.num_hidden_layers - tune_layers
        stack = layer_stack(encoder)
        if stack is None:
            raise AttributeError("no layer stack")  # make() checks first; here for the type checker
        self.layers = stack[self.cut:]
        self._mask: Callable = create_bidirectional_mask

    @classmethod
    def make(cls, torch, encoder, tune_layers: int, sample) -> TopLayers | None:
        """The split, if the encoder has a layer stack and the split reproduces its output on `sample`
        (ids, mask); None otherwise."""
        if layer_stack(encoder) is None:
            return None
        try:
            split = cls(torch, encoder, tune_layers)
            ids, mask = sample
            with torch.inference_mode():
                full = encoder(input_ids=ids, attention_mask=mask).last_hidden_state
                mine = split.states(split.lower(ids, mask), mask)
            same = bool(torch.allclose(full[mask.bool()], mine[mask.bool()], atol=1e-4, rtol=1e-3))
        except (TypeError, ValueError, AttributeError, ImportError):  # layers called another way
            return None
        return split if same else None

    def lower(self, ids, mask):
        """The frozen part's output (the input of the first tuned layer)."""
        return self.encoder(input_ids=ids, attention_mask=mask, output_hidden_states=True).hidden_states[self.cut]

    def states(self, hidden, mask):
        """The last layer's states from the kept lower ones."""
        attention = self._mask(config=self.encoder.config, inputs_embeds=hidden, attention_mask=mask)
        for layer in self.layers:
            hidden = layer(hidden, attention_mask=attention)
            hidden = hidden[0] if isinstance(hidden, tuple) else hidden
        return hidden
