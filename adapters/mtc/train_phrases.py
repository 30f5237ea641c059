"""Training the phrase rows (EMAT, 000 §2) with the encoder frozen.

Each training pair is a phrase × sentence with the phrase replaced by one mask; the
target is the phrase's row among tokens + phrases (cross-entropy over both). Optional
token pairs mask a single-token word of the same sentence with that word as target, so
the phrase rows also learn where they do NOT belong; without them every phrase row
drifts upwards and phrases crowd out single words at every mask.

Since the encoder is frozen, its state at each mask is a constant: it is computed once
(the only expensive step) and the epochs run over those vectors. With the head frozen
too, each pair's log-sum-exp over the token rows is a constant as well, so an epoch
costs one [pairs × phrases] product instead of [pairs × (tokens + phrases)]; this is
exact, not an approximation.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

import torch

from workbench.adapters.mtc.encode import MaskedText, encode_all, hidden_at
from workbench.adapters.mtc.head import ExtendedHead
from workbench.adapters.mtc.phrases import PhraseVocabulary
from workbench.adapters.mtc.scorer import allowed_mask
from workbench.adapters.mtc.settings import TrainSettings  # its old home: imported from here too

_WORD = re.compile(r"[^\W\d_]{2,}")


@dataclass(frozen=True, slots=True)
class Pair:
    text: MaskedText
    target: int  # index in tokens + phrases (phrase p is n_tokens + p)
    is_phrase: bool
    held_out: bool


@dataclass(frozen=True, slots=True)
class Accuracy:
    pairs: int
    at1: float
    at10: float
    phrase_top1: float  # share of pairs whose top-1 candidate is a phrase


@dataclass(frozen=True, slots=True)
class TrainReport:
    settings: dict
    phrase_pairs: int
    token_pairs: int
    held_out_phrase_pairs: int
    held_out_token_pairs: int
    encode_seconds: float
    train_seconds: float
    loss_by_epoch: tuple[float, ...]
    train_phrase: Accuracy | None  # None without phrase pairs, as the held-out ones
    held_out_phrase: Accuracy | None
    held_out_token: Accuracy | None
    threads: int = field(default_factory=torch.get_num_threads)

    def to_dict(self) -> dict:
        return asdict(self)


def make_pairs(vocab: PhraseVocabulary, mlm, n_tokens: int, token_pairs: float, seed: int) -> list[Pair]:
    """Phrase pairs, then token pairs drawn from the same sentences (outside the phrase)."""
    tokenizer = mlm.tokenizer
    pairs = [Pair(MaskedText(s.sentence[:s.start], s.sentence[s.end:]), n_tokens + s.phrase, True, s.held_out)
             for s in vocab.sentences]
    if token_pairs <= 0:
        return pairs
    words = sorted({m.group() for s in vocab.sentences for m in _WORD.finditer(s.sentence)})
    ids = tokenizer([" " + w for w in words], add_special_tokens=False)["input_ids"] if words else []
    keep = mlm.table.first_piece_ok(True)
    single = {w: i[0] for w, i in zip(words, ids) if len(i) == 1 and i[0] < n_tokens and keep[i[0]]}
    rng = random.Random(seed)
    whole, fraction = divmod(token_pairs, 1.0)
    for s in vocab.sentences:
        spots = [m for m in _WORD.finditer(s.sentence)
                 if m.group() in single and (m.end() <= s.start or m.start() >= s.end)]
        n = int(whole) + (1 if rng.random() < fraction else 0)
        for m in rng.sample(spots, min(n, len(spots))):
            pairs.append(Pair(MaskedText(s.sentence[:m.start()], s.sentence[m.end():]), single[m.group()],
                              False, s.held_out))
    return pairs


@dataclass
class Prepared:
    """Pairs and the frozen encoder's states at their masks: computed once, reusable for
    several trainings over the same vocabulary (e.g. comparing initialisations)."""
    pairs: list[Pair]
    hidden: torch.Tensor
    encode_seconds: float


def prepare(mlm, vocab: PhraseVocabulary, settings: TrainSettings, *,
            progress: Callable[[str, int, int], None] | None = None) -> Prepared:
    n_tokens = mlm.model.get_output_embeddings().weight.shape[0]
    pairs = make_pairs(vocab, mlm, n_tokens, settings.token_pairs, settings.seed)
    if not any(p.is_phrase and not p.held_out for p in pairs):
        raise ValueError("no phrase sentences to train on: lower min_count or add text")
    started = time.perf_counter()
    rows = encode_all(mlm, [p.text.parts() for p in pairs])
    n_seq = len({enc.ids for enc, _ in rows})
    done = [0]

    def step(n: int) -> None:
        done[0] += n
        if progress:
            progress("encode", done[0], n_seq)
    hidden = hidden_at(mlm, rows, progress=step)
    return Prepared(pairs, hidden, time.perf_counter() - started)


def train_phrase_rows(mlm, vocab: PhraseVocabulary, settings: TrainSettings, *,
                      progress: Callable[[str, int, int], None] | None = None,
                      prepared: Prepared | None = None) -> tuple[ExtendedHead, TrainReport]:
    """Train the phrase rows of a fresh ExtendedHead over `mlm` (a workbench.mlm MaskedLM,
    left frozen in eval mode). progress(stage, done, total) is called as encoding and
    epochs advance. `prepared` (from prepare() with the same vocabulary, token_pairs and
    seed) skips the encoder pass."""
    torch.manual_seed(settings.seed)
    model = mlm.model
    model.eval()
    for p in model.parameters():
        p.requires_grad_(False)
    head = ExtendedHead(model, len(vocab.phrases))
    generator = torch.Generator().manual_seed(settings.seed)
    std = getattr(model.config, "initializer_range", 0.02)
    head.initialise(settings.init, [p.token_ids for p in vocab.phrases], std=std, generator=generator)
    prepared = prepared or prepare(mlm, vocab, settings, progress=progress)
    pairs, hidden, encode_seconds = prepared.pairs, prepared.hidden, prepared.encode_seconds

    index = [n for n, p in enumerate(pairs) if not p.held_out]
    x = hidden[index]
    y = torch.tensor([pairs[n].target for n in index])
    params = [head.phrase_weight, head.phrase_bias]
    if settings.train_head:
        for p in head.transform.parameters():
            p.requires_grad_(True)
            params.append(p)
        if head._decoder[0].bias is not None:
            head._decoder[0].bias.requires_grad_(True)
            params.append(head._decoder[0].bias)
    optimiser = torch.optim.Adam(params, lr=settings.lr)
    V = head.n_tokens

    features = token_lse = token_target = None
    if not settings.train_head:  # the exact shortcut of the module docstring
        with torch.no_grad():
            features = head.transform(x)
            token_scores = head.token_scores(features)
            token_lse = torch.logsumexp(token_scores, dim=-1)
            token_target = token_scores.gather(1, y.clamp(max=V - 1).unsqueeze(1)).squeeze(1)
            del token_scores

    started = time.perf_counter()
    # The epochs are many tiny operations: one thread. With two, OpenMP's waiting threads
    # made them ~15x slower on a busy 2-core machine (163 s instead of 10 s for 20 epochs).
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        losses = _epochs(head, optimiser, settings, x, y, features, token_lse, token_target, generator, progress)
    finally:
        torch.set_num_threads(threads)
    train_seconds = time.perf_counter() - started
    for p in params:
        p.requires_grad_(False)

    held = [n for n, p in enumerate(pairs) if p.held_out]
    report = TrainReport(
        settings=asdict(settings),
        phrase_pairs=sum(p.is_phrase and not p.held_out for p in pairs),
        token_pairs=sum(not p.is_phrase and not p.held_out for p in pairs),
        held_out_phrase_pairs=sum(p.is_phrase and p.held_out for p in pairs),
        held_out_token_pairs=sum(not p.is_phrase and p.held_out for p in pairs),
        encode_seconds=round(encode_seconds, 3), train_seconds=round(train_seconds, 3),
        loss_by_epoch=tuple(round(v, 4) for v in losses),
        train_phrase=accuracy(mlm, head, hidden, pairs, [n for n in index if pairs[n].is_phrase]),
        held_out_phrase=accuracy(mlm, head, hidden, pairs, [n for n in held if pairs[n].is_phrase]),
        held_out_token=accuracy(mlm, head, hidden, pairs, [n for n in held if not pairs[n].is_phrase]),
    )
    return head, report


def _epochs(head, optimiser, settings: TrainSettings, x, y, features, token_lse, token_target, generator,
            progress) -> list[float]:
    """Mean loss per epoch. With the head frozen (features given) an epoch needs only the
    phrase scores; token_lse / token_target are the constant token parts (module docstring)."""
    V = head.n_tokens
    losses = []
    for epoch in range(settings.epochs):
        order = torch.randperm(len(y), generator=generator)
        total = 0.0
        for b in range(0, len(order), settings.batch_size):
            batch = order[b:b + settings.batch_size]
            yb = y[batch]
            if features is None:
                loss = torch.nn.functional.cross_entropy(head(x[batch]), yb, reduction="sum")
            else:
                ph = head.phrase_scores(features[batch])
                lse = torch.logaddexp(token_lse[batch], torch.logsumexp(ph, dim=-1))
                is_phrase = yb >= V
                target = torch.where(is_phrase, ph.gather(1, (yb - V).clamp(min=0).unsqueeze(1)).squeeze(1),
                                     token_target[batch])
                loss = (lse - target).sum()
            optimiser.zero_grad()
            (loss / len(batch)).backward()
            optimiser.step()
            total += loss.item()
        losses.append(total / len(y))
        if progress:
            progress("train", epoch + 1, settings.epochs)
    return losses


def accuracy(mlm, head: ExtendedHead, hidden: torch.Tensor, pairs: Sequence[Pair],
             rows: Sequence[int]) -> Accuracy | None:
    """Whether the target is the top-1 / among the top-10 whole-word candidates (as at
    inference; a candidate after a space, which is where training masks sit)."""
    if not rows:
        return None
    allowed = allowed_mask(mlm, head, True)
    at1 = at10 = phrase1 = 0
    with torch.no_grad():
        for b in range(0, len(rows), 256):
            chunk = list(rows[b:b + 256])
            scores = head(hidden[chunk]).masked_fill(~allowed, float("-inf"))
            target = torch.tensor([pairs[n].target for n in chunk])
            # rank = number of candidates scoring strictly higher than the target
            better = (scores > scores.gather(1, target.unsqueeze(1))).sum(1)
            at1 += int((better == 0).sum())
            at10 += int((better < 10).sum())
            phrase1 += int((scores.argmax(1) >= head.n_tokens).sum())
    n = len(rows)
    return Accuracy(n, round(at1 / n, 4), round(at10 / n, 4), round(phrase1 / n, 4))
