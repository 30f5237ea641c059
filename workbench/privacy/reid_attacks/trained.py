"""The trained attacker: the TRI recipe of Manzanares-Salor et al. (2024), as paper 004 §4.2 uses it.

A transformer classifier with one class per individual of the background file is
trained on sliding windows of the background texts (each window labelled with its
text's individual); optionally the base model first continues masked-LM pre-training on
the same windows. A pseudonymised document is cut into windows the same way, the
classifier's logits are summed over its windows (as TAE does), and the individuals are
ranked by that sum.

Users' default base model: `distilbert-base-uncased` (TRI's and TAE's default), from the
local Hugging Face cache or the hub; any local model directory works, and `offline`
names the offline English encoder of this repository (workbench.mlm.offline: MiniLM-L6
with an MLM head, 22.7M parameters), the stand-in here, where there is no model hub.

Settings that differ from TAE's TRI defaults, to keep training to minutes on two CPU
cores (docs/privacy.md gives the measured figures): at most 24 windows per individual,
evenly spaced (`max_windows`); the head fitted on the frozen encoder's features of every
window (linear probing, `probe_steps`) and, by default, no fine-tuning of the encoder
after it (`epochs`, TAE: 15): measured here on TAB with the offline encoder, one epoch of
fine-tuning after the probe took about 9 minutes more and re-identified fewer original
documents (0.54 against 0.60), a quarter epoch likewise, and fine-tuning from a random
head learnt nothing in the time (the loss stayed at ln 127 for 72 steps). `-o epochs=1`
(or 15, with `-o max_windows=0`, TAE's budget, for a GPU) runs the fine-tuning, encoder
and head together, after the probe (LP-FT, Kumar et al. 2022). The head reads the first
token's state and the mean of the window's states (see trained_model.classifier); no masked-LM
pre-training unless asked (`pretrain_epochs`); no NER-masked copy of the background and
no lemmatising "curation" (both need spaCy's en_core_web_lg, not installable here); no
choice of the best epoch by accuracy on the attacked documents (TAE selects the epoch on
the anonymisations it then scores, which flatters the attacker). Window 100 tokens with
25 overlapping, batch 16, encoder learning rate 5e-5, constant: as TAE.

The trained model is cached under workbench.infra.paths.cache_dir()/privacy, keyed on the
background file's hash, these settings and the base model, so later runs are scored
without retraining. A build runs under a file lock into a temporary folder renamed into
place when complete.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from workbench.infra.devices import (
    AUTO,
    DEFAULT_DEVICE,
    DEFAULT_DTYPE,
    auto_dtype_line,
    autocast,
    check_device,
    check_dtype,
    placement,
    precision_entries,
)
from workbench.infra.errors import InvalidValue, WorkbenchError
from workbench.infra.paths import cache_dir
from workbench.mlm.hub import find_model
from workbench.mlm.models import OFFLINE
from workbench.privacy.reid_attacks.background import Background
from workbench.privacy.reid_attacks.reid_contract import attack_settings
from workbench.privacy.reid_attacks.trained_model import batch, classifier, load_torch, windows
from workbench.privacy.reid_attacks.trained_training import ClassifierTraining

DEFAULT_BASE_MODEL = "distilbert-base-uncased"
INFO_FILE = "attacker.json"


@dataclass(frozen=True, slots=True)
class TrainedConfig:
    base_model: str = DEFAULT_BASE_MODEL  # hub id, local directory, or "offline"
    window: int = 100  # tokens per window, special tokens included (TAE: "100-25")
    overlap: int = 25  # tokens shared with the previous window
    max_windows: int = 24  # per individual, evenly spaced (0: all); bounds the training time
    probe_steps: int = 300  # full-batch steps fitting the head on the frozen encoder's features (0: none)
    probe_learning_rate: float = 1e-2
    # Fine-tuning passes over the windows after the probe (TAE: 15). 0 here: on two CPU cores one
    # epoch takes about 9 minutes and did not beat the probe alone (docs/privacy.md).
    epochs: float = 0.0
    batch_size: int = 16
    learning_rate: float = 5e-5  # the encoder while fine-tuning (TAE: 5e-5)
    head_learning_rate: float = 1e-3  # the head while fine-tuning
    pretrain_epochs: float = 0.0  # masked-LM pre-training on the same windows first (TAE: 3, 512-token windows)
    mlm_probability: float = 0.15
    seed: int = 0
    # Where the encoder runs and in which number format (workbench.infra.devices; "auto" resolved per
    # machine). The weights stay float32; another dtype runs every forward pass under
    # torch.autocast, training included. A model trained in bfloat16 is cached apart.
    device: str = DEFAULT_DEVICE
    dtype: str = DEFAULT_DTYPE

    def __post_init__(self) -> None:
        check_device(self.device)
        check_dtype(self.dtype)
        if self.window < 8:
            raise InvalidValue(f"window must be at least 8 tokens, not {self.window}")
        if not 0 <= self.overlap < self.window - 4:  # 4: room for the special tokens and a stride of 2 at least
            raise InvalidValue(f"overlap must be at least 0 and below window - 4 ({self.window - 4}), "
                               f"not {self.overlap}")
        if self.epochs < 0 or self.pretrain_epochs < 0 or self.probe_steps < 0:
            raise InvalidValue(f"epochs, pretrain_epochs and probe_steps must be at least 0, not {self.epochs} / "
                               f"{self.pretrain_epochs} / {self.probe_steps}")
        if self.epochs == 0 and self.probe_steps == 0:
            raise InvalidValue("epochs and probe_steps are both 0: nothing would train the classifier")
        if self.batch_size < 1 or self.max_windows < 0:
            raise InvalidValue(f"batch_size must be at least 1 and max_windows at least 0, not {self.batch_size} / "
                               f"{self.max_windows}")
        if min(self.learning_rate, self.head_learning_rate, self.probe_learning_rate) <= 0 \
                or not 0 < self.mlm_probability < 1:
            raise InvalidValue("learning rates must be above 0 and mlm_probability between 0 and 1")


def resolve_base(ref: str) -> Path:
    """A local directory for the base model: `offline`, a directory, or a hub id already downloaded
    (or downloadable: workbench.mlm.hub). Never trains: a missing offline model names its build command."""
    if ref == OFFLINE:
        from workbench.mlm.offline import offline_model_path
        return offline_model_path("en")
    return find_model(ref, _snapshot, what="the base model",
                      way_out=f"Give a local model directory with -o base_model=PATH, or -o base_model={OFFLINE} "
                              f"for the offline test encoder (`workbench mlm build-offline`)")


def _snapshot(where: str | Path, local_only: bool) -> Path:
    """A local model's folder, or the hub model's folder in the Hugging Face cache (downloaded unless local_only)."""
    if isinstance(where, Path):
        return where
    from huggingface_hub import snapshot_download
    return Path(snapshot_download(where, local_files_only=local_only))


def base_fingerprint(path: Path) -> str:
    """Identifies the base weights: its config and the names and sizes of its weight files."""
    h = hashlib.sha256()
    config = path / "config.json"
    h.update(config.read_bytes() if config.is_file() else b"")
    for f in sorted(path.iterdir()):
        if f.suffix in (".safetensors", ".bin", ".json", ".txt", ".model") and f.name != "config.json":
            h.update(f"{f.name}:{f.stat().st_size}".encode())
    return h.hexdigest()[:16]


class TrainedAttacker:
    """The TRI classifier; trained (or loaded from the cache) on first use."""

    name = "trained"
    Config = TrainedConfig  # what workbench.privacy.reid_attacks.attackers builds from -o options
    batch_documents = 8  # per stored transaction: an interrupted attack loses seconds (trained-minilm too)

    def __init__(self, background: Background, config: TrainedConfig,
                 log: Callable[[str], None] | None = None) -> None:
        self.background = background
        self.config = config
        self.log = log or (lambda message: None)
        self.base_path = self.resolve_base(config.base_model)
        self._base_id = base_fingerprint(self.base_path)
        self._model = self._tokenizer = None
        self.device, self.dtype = placement(config.device, config.dtype)
        if config.dtype == AUTO:  # what it picked on this machine, and why
            self.log(f"trained attacker: {auto_dtype_line(config.dtype, self.device)}")

    @staticmethod
    def resolve_base(ref: str) -> Path:
        """The base model's local folder (a subclass may know more names: trained_minilm)."""
        return resolve_base(ref)

    def describe(self) -> dict:
        """The settings that make the model (not the device it runs on), the base weights, the recipe's
        version; the number format when it is not float32 (so float32 models keep their keys)."""
        settings = {k: v for k, v in asdict(self.config).items() if k not in ("device", "dtype")}
        precision = precision_entries(self.device, self.dtype)  # the dtype and its kernels; none for float32
        return {**settings, **precision, "base_weights": self._base_id, "recipe": "tri-2"}

    @property
    def model_dir(self) -> Path:
        # attack_settings: a weaker attacker (the first part of each background text) is trained apart.
        payload = json.dumps({"config": attack_settings(self), "background": self.background.sha256}, sort_keys=True)
        return cache_dir() / "privacy" / f"{self.name}-{hashlib.sha256(payload.encode()).hexdigest()[:12]}"

    @property
    def is_built(self) -> bool:
        return (self.model_dir / INFO_FILE).is_file()

    def build(self) -> Path:
        """The trained model's directory, training it first (minutes) if it is not cached."""
        path = self.model_dir
        if (path / INFO_FILE).is_file():
            return path
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path.with_name(path.name + ".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # another process may be training the same attacker
            if not (path / INFO_FILE).is_file():
                tmp = path.with_name(path.name + ".partial")
                shutil.rmtree(tmp, ignore_errors=True)
                tmp.mkdir(parents=True)
                info = self._train(tmp)
                (tmp / INFO_FILE).write_text(json.dumps(info, indent=2, ensure_ascii=False))
                shutil.rmtree(path, ignore_errors=True)
                tmp.rename(path)
                # Said after the rename: the folder trained into is a temporary one (.partial).
                self.log(f"trained attacker built in {info['seconds']:.0f} s; cached at {path}")
        return path

    def info(self) -> dict:
        return json.loads((self.build() / INFO_FILE).read_text())

    def _train(self, out: Path) -> dict:
        started = time.time()
        training = ClassifierTraining(self.config, self.base_path, self.device, self.dtype, self.log)
        done = training.run(self.background, out)
        return {"individuals": list(self.background.individuals), "background": self.background.label,
                "background_sha256": self.background.sha256, "config": self.describe(), **done,
                "seconds": round(time.time() - started, 1)}

    # -- attacking ---------------------------------------------------------------------
    def _load(self):
        if self._model is None:
            torch = load_torch()
            from transformers import AutoTokenizer
            path = self.build()
            stored = json.loads((path / INFO_FILE).read_text())["individuals"]
            if stored != list(self.background.individuals):
                raise WorkbenchError(f"the cached attacker {path} was trained on other individuals; delete it")
            self._tokenizer = AutoTokenizer.from_pretrained(path)
            self._model = classifier(torch).load(path, len(stored)).to(self.device).eval()
            self._torch = torch
        return self._model, self._tokenizer

    def scores(self, texts: Sequence[str], *, batch_windows: int = 64) -> np.ndarray:
        """(len(texts), n_individuals): each text's classifier logits summed over its windows (as TAE)."""
        model, tokenizer = self._load()
        torch, cfg = self._torch, self.config
        rows, owner = [], []
        for i, text in enumerate(texts):
            mine = windows(tokenizer, text, cfg.window, cfg.overlap)
            rows.extend(mine)
            owner.extend([i] * len(mine))
        out = np.zeros((len(texts), len(self.background.individuals)), dtype=np.float64)
        with torch.inference_mode(), autocast(self.device, self.dtype):
            for start in range(0, len(rows), batch_windows):
                ids, mask = batch(torch, rows[start:start + batch_windows], tokenizer.pad_token_id)
                logits = model(ids.to(self.device), mask.to(self.device))
                np.add.at(out, np.asarray(owner[start:start + batch_windows]), logits.double().cpu().numpy())
        return out
