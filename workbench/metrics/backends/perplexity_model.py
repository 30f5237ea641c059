"""The torch side of the perplexity metrics: fine-tune a causal LM on documents, score documents.

    lms = FineTunedLMs(folder)                      # folder None: kept in memory only
    tokenizer, model = lms.get(key, base, texts, settings)
    document_nlls(tokenizer, model, texts, settings.max_tokens)   # [(summed NLL, tokens)] per text

Each document is read as an end-of-text token followed by its first `max_tokens` tokens, so
every one of those tokens is predicted (the first from the end-of-text token alone). Training
and scoring are seeded and run in float32 on the CPU, so one key always names one model.
Kept apart from perplexity.py so that the metric's arithmetic never imports torch.
"""

from __future__ import annotations

import os
import random
import shutil
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

IGNORE = -100  # the label torch's cross-entropy leaves out (padding)
SCORE_BATCH = 8  # documents per forward pass when scoring


def encode(tokenizer, text: str, max_tokens: int) -> list[int]:
    """The end-of-text token, then the text's first max_tokens tokens."""
    return [tokenizer.eos_token_id, *tokenizer(text, add_special_tokens=False)["input_ids"][:max_tokens]]


def _batch(rows: Sequence[list[int]], pad: int):
    """Right-padded ids, attention mask and labels (IGNORE at padding and at each row's first token)."""
    import torch
    length = max(len(r) for r in rows)
    ids = torch.full((len(rows), length), pad, dtype=torch.long)
    attention = torch.zeros_like(ids)
    for n, row in enumerate(rows):
        ids[n, :len(row)] = torch.tensor(row)
        attention[n, :len(row)] = 1
    labels = ids.masked_fill(attention == 0, IGNORE)
    return ids, attention, labels


def _token_nlls(model, ids, attention, labels):
    """NLL of each predicted token, (rows, length - 1); 0 where the label is IGNORE."""
    import torch
    logits = model(input_ids=ids, attention_mask=attention).logits[:, :-1].float()
    targets = labels[:, 1:]
    return torch.nn.functional.cross_entropy(logits.transpose(1, 2), targets, ignore_index=IGNORE,
                                             reduction="none")


def document_nlls(tokenizer, model, texts: Sequence[str], max_tokens: int) -> list[tuple[float, int]]:
    """(summed NLL in nats, tokens predicted) of each text; (0.0, 0) for a text with no token."""
    import torch
    encoded = [encode(tokenizer, t, max_tokens) for t in texts]
    out: list[tuple[float, int]] = []
    model.eval()
    with torch.no_grad():
        for start in range(0, len(encoded), SCORE_BATCH):
            rows = encoded[start:start + SCORE_BATCH]
            ids, attention, labels = _batch(rows, tokenizer.eos_token_id)
            nll = _token_nlls(model, ids, attention, labels).double().sum(dim=1)
            out += [(float(v), len(r) - 1) for v, r in zip(nll, rows)]
    return out


def load_causal_lm(path: Path):
    """(tokenizer, model) from a local directory, float32 on the CPU; WorkbenchError if unreadable."""
    from workbench.infra.errors import MissingExtra, WorkbenchError
    try:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer
        from transformers.utils import logging
    except ModuleNotFoundError as exc:
        raise MissingExtra("the perplexity metrics", "mlm", exc.name) from None
    logging.set_verbosity_error()
    logging.disable_progress_bar()
    try:
        tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
        model = AutoModelForCausalLM.from_pretrained(path, local_files_only=True, dtype=torch.float32)
    except Exception as exc:  # a folder that is not a causal LM: one line, not a traceback
        from workbench.mlm.hub import first_line
        raise WorkbenchError(f"cannot load a causal LM from {path} ({first_line(exc)})") from None
    if tokenizer.eos_token_id is None:
        raise WorkbenchError(f"the tokenizer in {path} has no end-of-text token; perplexity needs a causal LM")
    return tokenizer, model.to("cpu")


def fine_tune(base: Path, texts: Sequence[str], settings):
    """(tokenizer, model): the base model after settings.steps AdamW steps over the texts.

    Batches of settings.batch_size documents, drawn in a seeded shuffled order (every document
    once before any twice); the learning rate decays linearly to 0."""
    import torch
    tokenizer, model = load_causal_lm(base)
    torch.manual_seed(settings.seed)
    rng = random.Random(settings.seed)
    rows = [r for r in (encode(tokenizer, t, settings.max_tokens) for t in texts) if len(r) > 1]
    if not rows:
        return tokenizer, model  # nothing to learn from: the base model, as the docstring of perplexity.py says
    optimiser = torch.optim.AdamW(model.parameters(), lr=settings.lr, weight_decay=0.0)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimiser, lambda s: max(0.0, 1 - s / settings.steps))
    model.train()
    order: list[int] = []
    for _ in range(settings.steps):
        if len(order) < settings.batch_size:
            fresh = list(range(len(rows)))
            rng.shuffle(fresh)
            order += fresh
        ids, attention, labels = _batch([rows[i] for i in order[:settings.batch_size]], tokenizer.eos_token_id)
        del order[:settings.batch_size]
        nll = _token_nlls(model, ids, attention, labels)
        loss = nll.sum() / (labels[:, 1:] != IGNORE).sum()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimiser.step()
        schedule.step()
        optimiser.zero_grad(set_to_none=True)
    model.eval()
    return tokenizer, model


class FineTunedLMs:
    """Fine-tuned models by key: saved under `folder` (one directory per key) and, with or
    without a folder, the last HELD used kept in memory: a corpus's original LM serves every
    run in turn beside each run's own LM. `trained` counts the fine-tunings run."""

    HELD = 2

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self.memory: OrderedDict[str, tuple] = OrderedDict()
        self.trained = 0

    def get(self, key: str, base: Path, texts: Sequence[str], settings):
        if key in self.memory:
            self.memory.move_to_end(key)
            return self.memory[key]
        saved = self.folder / key if self.folder is not None else None
        if saved is not None and (saved / "config.json").is_file():
            loaded = load_causal_lm(saved)
        else:
            loaded = fine_tune(base, texts, settings)
            self.trained += 1
            if saved is not None:
                _save(loaded, saved)
        self.memory[key] = loaded
        while len(self.memory) > self.HELD:
            self.memory.popitem(last=False)
        return loaded


def _save(loaded, path: Path) -> None:
    """Into a temporary folder renamed into place, so a killed save never looks complete. Another
    process may fine-tune and save the same key at the same time: each writes its own temporary
    folder, and the first complete one in place stays."""
    tokenizer, model = loaded
    tmp = path.with_name(f"{path.name}.{os.getpid()}.partial")
    shutil.rmtree(tmp, ignore_errors=True)
    model.save_pretrained(tmp)
    tokenizer.save_pretrained(tmp)
    if not (path / "config.json").is_file():
        shutil.rmtree(path, ignore_errors=True)  # an incomplete folder of an older version
        try:
            tmp.rename(path)
            return
        except OSError:  # another process renamed its copy into place first
            pass
    shutil.rmtree(tmp, ignore_errors=True)
