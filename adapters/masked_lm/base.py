"""What the masked-LM generators share: the config, one model per language, slot → model input.

The paper's models are the defaults (003 §3.2): FacebookAI/roberta-large for English and
AI-Sweden-Models/roberta-large-1160k for Swedish. `--model` sets one model for every
language: a hub id, a local directory, or `offline` (the small test model of each
document's language, built once; see docs/mlm.md). Models load on first use per
language, so an English-only corpus never needs the Swedish model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from workbench.generator_contract.base import Generator, Prediction
from workbench.infra.devices import DEFAULT_DEVICE, FLOAT32, PlacedModel, check_device, check_dtype
from workbench.infra.errors import InvalidValue
from workbench.mlm.masked_lm import Encoded
from workbench.mlm.models import DEFAULT_EN, DEFAULT_SV, OFFLINE, model_for
from workbench.text.slots import Gap, Slot


@dataclass(frozen=True, slots=True)
class MlmConfig:
    model: str | None = None  # one model for every language; overrides model_en / model_sv
    model_en: str = DEFAULT_EN  # workbench.mlm.models: the choice the inference attacker makes too
    model_sv: str = DEFAULT_SV
    max_tokens: int = 0  # window crop in tokens around the target; 0: the model's own limit
    # Where and in which number format the model runs (workbench.infra.devices): device auto = CUDA,
    # then MPS, then the CPU. dtype float32 by default, the same picks on every machine;
    # bfloat16 (or auto: bfloat16 where the hardware computes it) is the user's explicit
    # choice. The run signature records what they resolved to (docs/speed.md).
    device: str = DEFAULT_DEVICE
    dtype: str = FLOAT32
    # Of the ranked candidates, those of the original's origin (issue 41): a filter the engine
    # applies (Generator.keeps_origin, workbench.generation.pseudonym_choice). Hashed only when on.
    keep_origin: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.keep_origin, bool):
            raise InvalidValue(f"keep_origin must be true or false, not {self.keep_origin!r}")
        if self.max_tokens < 0:
            raise ValueError("max_tokens must be >= 0 (0: the model's own limit)")
        check_device(self.device)
        check_dtype(self.dtype)

    def model_for(self, lang: str) -> str:
        return model_for(self.model, self.model_en, self.model_sv, lang)


class MlmGenerator(PlacedModel, Generator):
    """Base of fill-mask, NS3 and NAd: model handling, one model call per language."""

    uses_gpu = True

    Config = MlmConfig
    config: MlmConfig

    def generate(self, slots: Sequence[Slot]) -> list[Prediction]:
        out: dict[int, Prediction] = {}  # by the slot's position
        by_lang: dict[str, list[int]] = {}
        for n, s in enumerate(slots):
            by_lang.setdefault(s.lang, []).append(n)
        for lang, members in by_lang.items():
            for n, words in zip(members, self._fill(self.lm(lang), [slots[n] for n in members], lang)):
                out[n] = Prediction(tuple(words)) if words else Prediction((), failed=True, note="no word candidate")
        return [out[n] for n in range(len(slots))]

    def _fill(self, lm, slots: list[Slot], lang: str) -> list[list[str]]:
        """The ranked word forms of each slot (all of one language), best first."""
        raise NotImplementedError

    def load(self) -> None:
        # Models load per language in lm(); a second load() (the engine's load_for after a
        # caller loaded them itself, as the benchmarks do) keeps what is loaded.
        if not hasattr(self, "_models"):
            self._models: dict[str, object] = {}  # resolved reference (hub id or directory) -> MaskedLM
            self._by_lang: dict[str, object] = {}

    def load_for(self, langs: Sequence[str]) -> None:
        """Every language's model now, before a run writes anything: a model that cannot
        load (a missing offline model, a hub id not here) stops the run at its start."""
        self.load()
        for lang in langs:
            self.lm(lang)

    def build_missing(self, langs: Sequence[str]) -> None:
        from workbench.mlm.offline_build import build_offline_model
        for lang in langs:
            if self.config.model_for(lang) == OFFLINE:
                build_offline_model(lang)  # returns at once when built

    def lm(self, lang: str):
        """The MaskedLM for a language, loaded on first use.

        Cached by the resolved model, not by the name asked for: `offline` names a different
        model per language, while one hub id or directory for every language loads once."""
        if not hasattr(self, "_models"):
            self.load()
        if lang not in self._by_lang:
            from workbench.mlm.loading import load_masked_lm, resolve
            ref = resolve(self.config.model_for(lang), lang)
            if ref not in self._models:
                device, dtype = self.placement()
                self._models[ref] = load_masked_lm(ref, lang=lang, max_tokens=self.config.max_tokens or None,
                                                   device=device, dtype=dtype)
            self._by_lang[lang] = self._models[ref]
        return self._by_lang[lang]


    def keeps_origin(self) -> bool:
        return self.config.keep_origin

    def signature_config(self) -> dict:
        # keep_origin only when on, so runs made before the option keep their ids.
        config = super().signature_config()
        if not self.config.keep_origin:
            del config["keep_origin"]
        return config

    def model_id(self) -> str:
        """The signature's model: the offline models are named by their cache key (recipe + data)."""
        def one(lang: str) -> str:
            ref = self.config.model_for(lang)
            if ref == OFFLINE:
                from workbench.mlm.offline import model_dir
                return model_dir(lang).name
            return ref
        if self.config.model and self.config.model != OFFLINE:
            return self.config.model
        return f"en={one('en')},sv={one('sv')}"


def target_logits(lm, encoded: Sequence[tuple]) -> list:
    """Logits at the first mask of each (Encoded window, target gap) pair, in one forward
    pass. Pairs with the same window (maskL) share one row. Logits are taken only at the
    asked masks: the head's fixed-shape calls (MaskedLM._project) keep a position's numbers
    independent of the others, and a window's other masks are mostly other slots' targets
    in other windows (about five of six head rows were never read when every mask was taken)."""
    rows: list[Encoded] = []
    row_of: dict[tuple[int, ...], int] = {}
    positions: list[list[int]] = []
    for enc, target in encoded:
        if enc.ids not in row_of:
            row_of[enc.ids] = len(rows)
            rows.append(enc)
            positions.append([])
        wanted = positions[row_of[enc.ids]]
        if enc.masks[target][0] not in wanted:
            wanted.append(enc.masks[target][0])
    logits = lm.logits(rows, positions)
    out = []
    for enc, target in encoded:
        r = row_of[enc.ids]
        out.append(logits[r][positions[r].index(enc.masks[target][0])])
    return out


def window_parts(slot: Slot, masks_of) -> tuple[list[str | int], int]:
    """The slot's window as encoder parts (text runs, and a mask count per masked gap) and
    the index of the target among the masked gaps. `masks_of(gap)` says how many masks a
    gap gets. The walk over the gaps is Slot.parts (workbench/text/slots.py), the one the
    rendered windows of every other generator use too."""
    target = 0

    def masks(number: int, gap: Gap) -> int:
        nonlocal target
        if gap.span_index == slot.span_index:
            target = number - 1  # Slot.parts numbers masked gaps from 1
        return masks_of(gap)
    return slot.parts(masks), target


def one_mask(gap: Gap) -> int:
    return 1
