"""Training the trained attacker's window classifier (the recipe: workbench.privacy.reid_attacks.trained).

The encoder optionally continues masked-LM pre-training on the background windows
(`pretrain_epochs`); the head is then fitted on the frozen encoder's features (linear
probing, `probe_steps`); then, if asked (`epochs`), encoder and head are fine-tuned together
(LP-FT, Kumar et al. 2022); with `tune_layers` (the trained-minilm attacker's config) only the
top layers of the encoder are fine-tuned, on lower states kept from one pass
(workbench.privacy.reid_attacks.trained_layers). Every forward pass runs under the configured device and dtype.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from workbench.infra.devices import autocast
from workbench.infra.errors import InvalidValue, WorkbenchError
from workbench.privacy.reid_attacks.background import Background
from workbench.privacy.reid_attacks.trained_layers import TopLayers, freeze_below
from workbench.privacy.reid_attacks.trained_model import batch, classifier, load_torch, spread, windows

if TYPE_CHECKING:
    from workbench.privacy.reid_attacks.trained import TrainedConfig


class ClassifierTraining:
    """One training of the window classifier: the settings, the base weights, where it runs."""

    def __init__(self, config: TrainedConfig, base_path: Path, device: str, dtype: str,
                 log: Callable[[str], None]) -> None:
        self.config = config
        self.base_path = base_path
        self.device, self.dtype = device, dtype
        self.log = log

    def run(self, background: Background, out: Path) -> dict:
        """Trains the classifier on `background` and saves it (encoder, head, tokenizer) in `out`.

        Returns what the training did: windows, pre-training, probe, fine-tuning steps and loss."""
        torch = load_torch()
        from transformers import AutoModel, AutoTokenizer
        cfg = self.config
        torch.manual_seed(cfg.seed)
        tokenizer = AutoTokenizer.from_pretrained(self.base_path)
        if cfg.window > tokenizer.model_max_length:
            raise InvalidValue(f"window {cfg.window} is longer than the base model's limit "
                               f"({tokenizer.model_max_length} tokens)")
        rows, labels = self._windows(tokenizer, background.texts)
        n = len(background.individuals)
        self.log(f"training the trained attacker: {n} individuals, {len(rows)} windows of {cfg.window} tokens, "
                 f"base {cfg.base_model} …")
        base, pretrain = self.base_path, None
        if cfg.pretrain_epochs > 0:
            pretrain = self._pretrain(torch, tokenizer, rows, out / "mlm")
            base = out / "mlm"
        model = classifier(torch)(AutoModel.from_pretrained(base), n).to(self.device)
        target = torch.tensor(labels, dtype=torch.long)
        pad_id = tokenizer.pad_token_id
        tune = getattr(cfg, "tune_layers", 0)  # a TrainedConfig has none: every layer is fine-tuned
        split = TopLayers.make(torch, model.encoder, tune, self._sample(torch, rows, pad_id)) \
            if tune and cfg.epochs else None
        kept = self._kept(torch, split, rows, pad_id) if split is not None else None
        if cfg.probe_steps:
            feats = self._top_features(torch, model, split, kept) if kept is not None \
                else self._features(torch, model, rows, pad_id)
            probe = self._probe(torch, model, feats, target)
        else:
            probe = None
        if tune and cfg.epochs:
            freeze_below(torch, model.encoder, tune)
        losses: list[float] = []
        if not cfg.epochs:
            steps = 0
        elif kept is not None:
            steps, losses = self._fit_top(torch, model, split, kept, target)
        else:
            steps, losses = self._fit(torch, model, rows, target, pad_id)
        model.save(out)
        tokenizer.save_pretrained(out)
        shutil.rmtree(out / "mlm", ignore_errors=True)
        tuned = {"tune_layers": tune, "kept_lower_states": kept is not None} if tune else {}
        return {"windows": len(rows), "pretrain": pretrain, "probe": probe, "steps": steps, **tuned,
                "loss_first_last": [round(losses[0], 3), round(float(np.mean(losses[-20:])), 3)] if losses else None}

    def _windows(self, tokenizer, texts: Sequence[str]) -> tuple[list[list[int]], list[int]]:
        """Each text's windows (at most max_windows, evenly spaced), labelled with the text's index."""
        rows, labels = [], []
        cfg = self.config
        for label, text in enumerate(texts):
            mine = spread(windows(tokenizer, text, cfg.window, cfg.overlap), cfg.max_windows)
            rows.extend(mine)
            labels.extend([label] * len(mine))
        return rows, labels

    def _order(self, torch, n_rows: int, epochs: float) -> list[int]:
        """Shuffled window indices for `epochs` passes (a fraction of a pass takes a prefix)."""
        g = torch.Generator().manual_seed(self.config.seed)
        order: list[int] = []
        while len(order) < epochs * n_rows:
            order.extend(torch.randperm(n_rows, generator=g).tolist())
        return order[:max(1, round(epochs * n_rows))]

    def _features(self, torch, model, rows, pad_id):
        """The frozen encoder's features (what the head reads) of every window."""
        model.eval()
        with torch.inference_mode(), autocast(self.device, self.dtype):
            return torch.cat([model.features(*(t.to(self.device) for t in batch(torch, rows[s:s + 64], pad_id)))
                              for s in range(0, len(rows), 64)])

    @staticmethod
    def _sample(torch, rows, pad_id):
        """A few windows (a short one among them, so padding is checked) to check the layer split on."""
        pick = rows[:3] + [rows[-1]]
        return batch(torch, pick, pad_id)

    def _kept(self, torch, split, rows, pad_id):
        """The frozen lower part's output of every window, padded to the window length (float16, kept on
        the CPU), and the windows' masks: computed once, read by every fine-tuning step."""
        states, masks = [], []
        width = self.config.window
        with torch.inference_mode(), autocast(self.device, self.dtype):
            for s in range(0, len(rows), 64):
                ids, mask = batch(torch, rows[s:s + 64], pad_id)
                lower = split.lower(ids.to(self.device), mask.to(self.device)).float().cpu()
                pad = width - lower.shape[1]
                states.append(torch.nn.functional.pad(lower, (0, 0, 0, pad)).half())
                masks.append(torch.nn.functional.pad(mask, (0, pad)))
        return torch.cat(states), torch.cat(masks)

    def _kept_batch(self, kept, pick):
        states, masks = kept
        mask = masks[pick]
        width = int(mask.sum(1).max())  # no wider than the batch's longest window
        return states[pick][:, :width].float().to(self.device), mask[:, :width].to(self.device)

    def _top_features(self, torch, model, split, kept):
        model.eval()
        with torch.inference_mode(), autocast(self.device, self.dtype):
            out = []
            for s in range(0, len(kept[0]), 64):
                states, mask = self._kept_batch(kept, list(range(s, min(s + 64, len(kept[0])))))
                out.append(model.pool(split.states(states, mask), mask))
            return torch.cat(out)

    def _probe(self, torch, model, feats, target) -> dict:
        """Linear probing before fine-tuning (Kumar et al. 2022, "LP-FT"): the head is fitted on the frozen
        encoder's features of every window, so that fine-tuning starts from a head that already separates
        the individuals instead of a random one (whose gradients only add noise)."""
        cfg = self.config
        feats, target = feats.float().clone(), target.to(self.device)
        optimiser = torch.optim.Adam(model.head.parameters(), lr=cfg.probe_learning_rate)
        loss_fn = torch.nn.CrossEntropyLoss()
        for step in range(cfg.probe_steps):  # one at least: the caller probes only with probe_steps
            loss = loss_fn(model.head(feats), target)
            if step == 0:
                first = loss.item()
            loss.backward()
            optimiser.step()
            optimiser.zero_grad()
        with torch.no_grad():
            accuracy = float((model.head(feats).argmax(1) == target).float().mean())
        self.log(f"  probe: loss {first:.3f} → {loss.item():.3f}, accuracy on the training windows {accuracy:.3f}")
        return {"steps": cfg.probe_steps, "loss_first_last": [round(first, 3), round(loss.item(), 3)],
                "train_accuracy": round(accuracy, 3)}

    def _fit(self, torch, model, rows, target, pad_id) -> tuple[int, list[float]]:
        """Fine-tune encoder and head together (the head at head_learning_rate)."""
        cfg = self.config
        optimiser = self._optimiser(torch, model)
        loss_fn = torch.nn.CrossEntropyLoss()
        model.train()
        order, losses = self._order(torch, len(rows), cfg.epochs), []
        total = -(-len(order) // cfg.batch_size)
        for start in range(0, len(order), cfg.batch_size):
            pick = order[start:start + cfg.batch_size]
            ids, mask = batch(torch, [rows[i] for i in pick], pad_id)
            with autocast(self.device, self.dtype):
                loss = loss_fn(model(ids.to(self.device), mask.to(self.device)), target[pick].to(self.device))
            loss.backward()
            optimiser.step()
            optimiser.zero_grad()
            losses.append(loss.item())
            if len(losses) % max(1, total // 10) == 0:
                self.log(f"  fine-tuning step {len(losses)}/{total}, loss {np.mean(losses[-20:]):.3f}")
        model.eval()
        return len(losses), losses

    def _optimiser(self, torch, model):
        """AdamW over the encoder's trainable parameters (all, unless tune_layers froze the lower ones) and
        the head, each at its learning rate."""
        cfg = self.config
        encoder = [p for p in model.encoder.parameters() if p.requires_grad]
        return torch.optim.AdamW([{"params": encoder, "lr": cfg.learning_rate},
                                  {"params": model.head.parameters(), "lr": cfg.head_learning_rate}],
                                 weight_decay=0.0)

    def _fit_top(self, torch, model, split, kept, target) -> tuple[int, list[float]]:
        """Fine-tune the top layers and the head on the kept lower states (the frozen part's dropout
        is off: its states were computed once, in eval mode)."""
        cfg = self.config
        optimiser = self._optimiser(torch, model)
        loss_fn = torch.nn.CrossEntropyLoss()
        model.train()
        order, losses = self._order(torch, len(kept[0]), cfg.epochs), []
        total = -(-len(order) // cfg.batch_size)
        for start in range(0, len(order), cfg.batch_size):
            pick = order[start:start + cfg.batch_size]
            states, mask = self._kept_batch(kept, pick)
            with autocast(self.device, self.dtype):
                loss = loss_fn(model.head(model.pool(split.states(states, mask), mask)), target[pick].to(self.device))
            loss.backward()
            optimiser.step()
            optimiser.zero_grad()
            losses.append(loss.item())
            if len(losses) % max(1, total // 10) == 0:
                self.log(f"  fine-tuning the top {getattr(cfg, 'tune_layers', 0)} layers: step {len(losses)}/{total}, "
                         f"loss {np.mean(losses[-20:]):.3f}")
        model.eval()
        return len(losses), losses

    def _pretrain(self, torch, tokenizer, rows, out: Path) -> dict:
        from transformers import AutoModelForMaskedLM, DataCollatorForLanguageModeling
        cfg = self.config
        if tokenizer.mask_token_id is None:
            raise WorkbenchError(f"the base model {cfg.base_model} has no mask token: it cannot be pre-trained as a "
                                 "masked LM (set -o pretrain_epochs=0)")
        mlm = AutoModelForMaskedLM.from_pretrained(self.base_path).to(self.device)
        collate = DataCollatorForLanguageModeling(tokenizer, mlm_probability=cfg.mlm_probability)
        optimiser = torch.optim.AdamW(mlm.parameters(), lr=cfg.learning_rate, weight_decay=0.0)
        mlm.train()
        order, losses = self._order(torch, len(rows), cfg.pretrain_epochs), []
        for start in range(0, len(order), cfg.batch_size):
            batch = collate([{"input_ids": rows[i]} for i in order[start:start + cfg.batch_size]])
            with autocast(self.device, self.dtype):
                loss = mlm(**{k: v.to(self.device) for k, v in batch.items()}).loss
            loss.backward()
            optimiser.step()
            optimiser.zero_grad()
            losses.append(loss.item())
        mlm.save_pretrained(out)
        return {"steps": len(losses), "loss_first_last": [round(losses[0], 3), round(float(np.mean(losses[-20:])), 3)]}
