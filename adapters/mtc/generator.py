"""MTC and SS-MTC (000 §2-3): a masked LM whose output matrix is extended with phrases (EMAT).

A span gets one mask; top-k runs over the MLM's whole-word tokens and the checkpoint's
phrases together, so a candidate can be one word ("london") or a phrase ("Court of
Appeal"). The engine applies the UPOS filter and the leak guard; maskL and repL come
from the slots, exactly as for fill-mask.

    MTC:    phrases are frequent noun phrases of a tagged corpus (Kalinsky et al. 2023)
    SS-MTC: phrases are sensitive spans found in training text (000 §2)

The checkpoint directory comes from `workbench mtc train --kind mtc|ss-mtc --out DIR`
(see docs/mtc.md); without -o checkpoint=DIR the generator looks in the default place
that command writes to.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from workbench.generator_contract.base import Generator, Prediction
from workbench.infra.devices import DEFAULT_DEVICE, FLOAT32, PlacedModel, check_device, check_dtype
from workbench.infra.errors import WorkbenchError
from workbench.text.slots import Slot


@dataclass(frozen=True, slots=True)
class MtcConfig:
    # Checkpoint directory; None: the default of `workbench mtc train` for this kind (English).
    checkpoint: str | None = None
    # Tokens per window, cropped around the target (0: the model's own limit). The offline
    # test MLM was trained on windows of <= 128 tokens.
    max_tokens: int = 0
    batch_size: int = 32  # windows scored together (memory); results do not depend on it
    # Where and in which number format the encoder runs (workbench.infra.devices); the extended
    # head always scores in float32. float32 by default, like every generator: bfloat16
    # (or auto) is the user's explicit choice. The run signature records what they resolved to.
    device: str = DEFAULT_DEVICE
    dtype: str = FLOAT32

    def __post_init__(self) -> None:
        check_device(self.device)
        check_dtype(self.dtype)


class _EmatGenerator(PlacedModel, Generator):
    uses_gpu = True
    Config = MtcConfig
    config: MtcConfig
    kind = ""

    def _path(self) -> Path:
        from workbench.adapters.mtc.checkpoint import default_checkpoint
        return Path(self.config.checkpoint) if self.config.checkpoint else default_checkpoint(self.kind, "en")

    def _metadata(self) -> dict:
        from workbench.adapters.mtc.checkpoint import read_metadata
        meta = read_metadata(self._path())
        if meta.get("kind") != self.kind:
            raise WorkbenchError(f"{self._path()} is a {meta.get('kind')} checkpoint; "
                                 f"use `-g {meta.get('kind')}` or a {self.kind} checkpoint")
        return meta


    def model_id(self) -> str:
        # The fingerprint changes whenever the checkpoint is retrained, so a run over a new
        # checkpoint never resumes one over the old.
        meta = self._metadata()
        return f"{self.kind}:{meta.get('base_model')}@{meta['fingerprint'][:12]}"

    def build_missing(self, langs: Sequence[str]) -> None:
        if self.config.checkpoint:
            return  # the user's own checkpoint: nothing of ours to build
        from workbench.adapters.mtc.build import default_recipe, ensure_default
        from workbench.mlm.models import OFFLINE
        from workbench.mlm.offline_build import build_offline_model
        if default_recipe(self.kind, "en").base_model == OFFLINE:
            build_offline_model("en")
        ensure_default(self.kind, "en")

    def load(self) -> None:
        from workbench.adapters.mtc.checkpoint import load_checkpoint
        from workbench.adapters.mtc.scorer import EmatScorer
        meta = self._metadata()
        device, dtype = self.placement()
        checkpoint = load_checkpoint(self._path(), max_tokens=self.config.max_tokens or None,
                                     device=device, dtype=dtype)
        self.lang = meta["lang"]
        self.trained_on = set((meta.get("split") or {}).get("train_docs", ()))
        self.scorer = EmatScorer(checkpoint.mlm, checkpoint.head, [p["text"] for p in checkpoint.phrases],
                                 batch_size=self.config.batch_size)

    def load_for(self, langs: Sequence[str]) -> None:
        """Load the checkpoint and refuse a corpus of another language before a run writes anything."""
        self.load()
        other = sorted(set(langs) - {self.lang})
        if other:
            raise WorkbenchError(f"{self.name} checkpoint {self._path()} is for {self.lang!r} text; "
                                 f"the corpus has {', '.join(map(repr, other))} documents (select some with --docs)"
                                 + ("" if self.config.checkpoint else self._no_default(other[0])))

    def _no_default(self, lang: str) -> str:
        """What to do where only the English default exists (the README says it too)."""
        return (f"; {self.name} has no default {lang!r} checkpoint: train one over a {lang!r} masked LM with "
                f"`workbench mtc train --kind {self.kind} --lang {lang} --base-model DIR --out CKPT` and pass "
                f"`-o checkpoint=CKPT` (README: Multi-token completion)")

    def generate(self, slots: Sequence[Slot]) -> list[Prediction]:
        from workbench.adapters.masked_lm.base import one_mask, window_parts
        for s in slots:
            if s.lang != self.lang:
                raise WorkbenchError(f"{self.name} checkpoint {self._path()} is for {self.lang!r} text; "
                                     f"document {s.doc_id} is {s.lang!r}")
        ranked = self.scorer.rank([window_parts(s, one_mask) for s in slots], self.options.top_k)
        out = []
        for s, cands in zip(slots, ranked):
            # A document the phrases were trained on: its own spans may come back verbatim.
            note = "document in the checkpoint's training split" if s.doc_id in self.trained_on else ""
            if not cands:
                out.append(Prediction((), failed=True, note="no whole-word candidate"))
            else:
                out.append(Prediction(tuple(c.text for c in cands), note=note))
        return out


class MTC(_EmatGenerator):
    name = "mtc"
    # Masked LMs: fill-mask and MTC at 40 to 80 spans/s in float32 on this project's 2-core CPU
    # (docs/speed.md), rounded down; the multi-mask ones fill several masks a span.
    spans_per_second_estimate = 30.0
    kind = "mtc"


class SSMTC(_EmatGenerator):
    name = "ss-mtc"
    # Masked LMs: fill-mask and MTC at 40 to 80 spans/s in float32 on this project's 2-core CPU
    # (docs/speed.md), rounded down; the multi-mask ones fill several masks a span.
    spans_per_second_estimate = 30.0
    kind = "ss-mtc"
