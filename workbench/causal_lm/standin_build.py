"""Building the causal-LM stand-in: `workbench mlm build-causal-lm` (and on first use, by workbench.causal_lm.loading).

The only place that trains it, as workbench.mlm.offline_build is for the offline masked LMs:
under a file lock (two processes never train it twice), into a temporary folder renamed into
place only when complete. Training text is UD treebank text (EWT and Talbanken, never the
evaluation corpora, whose PII a model could learn); held-out text is PUD.
"""

from __future__ import annotations

import json
import math
import random
import shutil
import sys
import time
from pathlib import Path

from workbench.causal_lm.standin import BUILD_FILE, LANGS, RECIPE, StandinRecipe, standin_dir, training_text_files
from workbench.infra.build_once import built_once
from workbench.mlm.data import pud_path, read_documents, read_sentences

EOS = "<|endoftext|>"
PUD_SENTENCES = 200  # per language, for the held-out perplexity in build.json


def build_standin() -> Path:
    """The stand-in's directory, trained first (minutes) if it is not built yet."""
    return built_once(standin_dir(), BUILD_FILE, "standin.lock", lambda path: _build(RECIPE, path))


def _build(recipe: StandinRecipe, path: Path) -> None:
    tmp = path.with_name(path.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    started = time.time()
    print(f"building the causal-LM stand-in ({recipe.layers}-layer GPT-2, {recipe.steps} steps, about a minute on 2 "
          f"idle cores, once) in {path} …",
          file=sys.stderr)
    info = train_standin(recipe, tmp)
    info.update(recipe=recipe.key_fields(), key=path.name, seconds_total=round(time.time() - started, 1))
    (tmp / BUILD_FILE).write_text(json.dumps(info, indent=2))
    shutil.rmtree(path, ignore_errors=True)
    tmp.rename(path)
    print(f"causal-LM stand-in built in {info['seconds_total']:.0f} s: PUD perplexity {info['pud_perplexity']}",
          file=sys.stderr)


def train_standin(recipe: StandinRecipe, out: Path) -> dict:
    """Learn the tokenizer, train the model, save both into `out`; what build.json records."""
    import torch
    from transformers.utils import logging
    logging.set_verbosity_error()
    torch.manual_seed(recipe.seed)
    docs = [" ".join(d) for f in training_text_files() for d in read_documents(f)]
    tokenizer = _tokenizer(docs, recipe)
    model = _model(tokenizer, recipe)
    blocks = _blocks(tokenizer, docs, recipe.block)
    started = time.time()
    losses = _train(model, blocks, recipe)
    seconds = time.time() - started
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return {"steps_run": len(losses), "train_seconds": round(seconds, 1), "blocks": len(blocks),
            "loss_first_last": [round(losses[0], 3), round(sum(losses[-20:]) / len(losses[-20:]), 3)],
            "pud_perplexity": {lang: round(_pud_perplexity(model, tokenizer, lang), 2) for lang in LANGS}}


def _tokenizer(docs: list[str], recipe: StandinRecipe):
    from tokenizers import ByteLevelBPETokenizer
    from transformers import GPT2TokenizerFast
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(docs, vocab_size=recipe.vocab_size, min_frequency=2, special_tokens=[EOS],
                            show_progress=False)
    tokenizer = GPT2TokenizerFast(tokenizer_object=bpe._tokenizer, bos_token=EOS, eos_token=EOS, unk_token=EOS)
    tokenizer.model_max_length = recipe.positions
    return tokenizer


def _model(tokenizer, recipe: StandinRecipe):
    from transformers import GPT2Config, GPT2LMHeadModel
    config = GPT2Config(vocab_size=len(tokenizer), n_positions=recipe.positions, n_embd=recipe.hidden,
                        n_layer=recipe.layers, n_head=recipe.heads, bos_token_id=tokenizer.eos_token_id,
                        eos_token_id=tokenizer.eos_token_id)
    return GPT2LMHeadModel(config)


def _blocks(tokenizer, docs: list[str], block: int) -> list[list[int]]:
    """Every document after an end-of-text token, concatenated and cut into blocks of `block` tokens."""
    stream: list[int] = []
    for ids in tokenizer(docs, add_special_tokens=False)["input_ids"]:
        stream += [tokenizer.eos_token_id, *ids]
    return [stream[i:i + block] for i in range(0, len(stream) - block + 1, block)]


def _train(model, blocks: list[list[int]], recipe: StandinRecipe) -> list[float]:
    import torch
    rng = random.Random(recipe.seed)
    optimiser = torch.optim.AdamW(model.parameters(), lr=recipe.lr, weight_decay=0.01)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda s: min(1.0, (s + 1) / recipe.warmup) * max(0.0, 1 - s / recipe.steps))
    model.train()
    order: list[int] = []
    losses: list[float] = []
    started = time.time()
    for step in range(1, recipe.steps + 1):
        if len(order) < recipe.batch_size:
            fresh = list(range(len(blocks)))
            rng.shuffle(fresh)
            order += fresh
        ids = torch.tensor([blocks[i] for i in order[:recipe.batch_size]])
        del order[:recipe.batch_size]
        loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimiser.step()
        schedule.step()
        optimiser.zero_grad(set_to_none=True)
        losses.append(loss.item())
        if step % 50 == 0:
            print(f"  step {step}/{recipe.steps}: loss {sum(losses[-50:]) / 50:.3f}, {time.time() - started:.0f} s",
                  file=sys.stderr)
    model.eval()
    return losses


def _pud_perplexity(model, tokenizer, lang: str) -> float:
    """exp(mean token NLL) over PUD sentences (held out: the stand-in never saw them)."""
    import torch
    total, count = 0.0, 0
    with torch.no_grad():
        for sentence in read_sentences(pud_path(lang))[:PUD_SENTENCES]:
            ids = torch.tensor([[tokenizer.eos_token_id, *tokenizer(sentence)["input_ids"]]])
            n = ids.shape[1] - 1
            total += model(input_ids=ids, labels=ids).loss.item() * n
            count += n
    return math.exp(total / count)
