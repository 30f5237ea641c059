"""The masked-LM inference attacker: the N best whole words for the target, from the pseudonymised context.

The attacker's input is the published document around the target (`context_chars` each
side, cut at white space): every other span carries its replacement, and the target's
replacement becomes one mask of the model's own. The model's N best whole word forms at the
mask (workbench.mlm: whole words only, re-cased) are the guesses. A guess is one word; a
multi-word original is disclosed when one of its content words is guessed (004's lemma
overlap), and a full date (day, month, year) cannot be guessed this way.

Targets are batched: one forward pass per `batch_size` targets of a language, each row
padded to its length bucket, so a target's guesses do not depend on the other targets in
its batch (workbench.mlm.masked_lm; tested in tests/privacy/inference_attacks/test_inference_mlm.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from workbench.data_model import LANGUAGES
from workbench.infra.devices import (
    DEFAULT_DEVICE,
    DEFAULT_DTYPE,
    auto_dtype_line,
    check_device,
    check_dtype,
    placement,
    precision_entries,
)
from workbench.infra.errors import InvalidValue
from workbench.mlm.models import DEFAULT_EN, DEFAULT_SV, is_offline, model_for
from workbench.privacy.inference_attacks.inference_contract import Guesses, Target, clean_guesses, describe_config


@dataclass(frozen=True, slots=True)
class MlmAttackConfig:
    model: str = ""  # one model for every language (hub id, directory, `offline`); "": per language
    model_en: str = DEFAULT_EN  # the fill-mask generator's choice (workbench.mlm.models)
    model_sv: str = DEFAULT_SV
    context_chars: int = 1500  # characters of the document kept each side of the target
    max_tokens: int = 0  # crop around the mask to this many tokens; 0: the model's own limit
    batch_size: int = 32  # targets per forward pass
    # Where and in which number format the model runs (workbench.infra.devices); the attack key records
    # the resolved dtype when it is not float32 (MlmAttacker.describe).
    device: str = DEFAULT_DEVICE
    dtype: str = DEFAULT_DTYPE

    def __post_init__(self) -> None:
        if self.context_chars < 0 or self.max_tokens < 0 or self.batch_size < 1:
            raise InvalidValue("mlm attacker: context_chars and max_tokens must be >= 0, batch_size >= 1")
        check_device(self.device)
        check_dtype(self.dtype)

    def model_for(self, lang: str) -> str:
        return model_for(self.model, self.model_en, self.model_sv, lang)


def context_parts(target: Target, chars: int) -> list:
    """[left text, 1 mask, right text], cropped to `chars` each side at white space."""
    a = max(0, target.start - chars)
    left = target.text[a:target.start]
    if a > 0 and " " in left:
        left = left[left.index(" ") + 1:]  # a word cut in half would read as another word
    b = min(len(target.text), target.end + chars)
    right = target.text[target.end:b]
    if b < len(target.text) and " " in right:
        right = right[:right.rindex(" ")]
    return [left, 1, right]


_LOADED: dict[tuple, object] = {}  # (resolved model, max_tokens, device, dtype) -> MaskedLM


class MlmAttacker:
    name = "mlm"
    model_kind = "MLM"
    Config = MlmAttackConfig

    def __init__(self, config: MlmAttackConfig, n: int) -> None:
        self.config = config
        self.n = n

    def describe(self) -> dict:
        settings = describe_config(self.config)
        # `offline` names whichever offline model the recipe builds now; its cache key goes into
        # the attack key, so results of a rebuilt (other recipe) model are not taken as this one's.
        from workbench.mlm.offline import model_dir
        offline = {lang: model_dir(lang).name for lang in LANGUAGES
                   if is_offline(self.config.model_for(lang), lang)}
        precision = precision_entries(*self.placement())  # none for float32: those keys stay as they were
        return settings | precision | ({"offline_models": offline} if offline else {})

    def placement(self) -> tuple[str, str]:
        """(device, dtype) the model runs in, "auto" resolved for this machine."""
        return placement(self.config.device, self.config.dtype)

    def dtype_line(self) -> str:
        """What dtype=auto picked and why (said by `privacy infer`); "" when the dtype is given."""
        return auto_dtype_line(self.config.dtype, self.placement()[0])

    def load(self, langs: Sequence[str]) -> None:
        for lang in langs:
            self.lm(lang)

    def lm(self, lang: str):
        """The MaskedLM for a language, loaded once per process and resolved model (`offline`
        differs per language); the attack only reads it, so attacks share it."""
        from workbench.mlm.loading import load_masked_lm, resolve
        device, dtype = self.placement()
        key = (resolve(self.config.model_for(lang), lang), self.config.max_tokens, device, dtype)
        if key not in _LOADED:
            _LOADED[key] = load_masked_lm(key[0], lang=lang, max_tokens=self.config.max_tokens or None,
                                          device=device, dtype=dtype)
        return _LOADED[key]

    def guess(self, targets: Sequence[Target]) -> list[Guesses]:
        out: list[Guesses | None] = [None] * len(targets)
        by_lang: dict[str, list[int]] = {}
        for i, t in enumerate(targets):
            by_lang.setdefault(t.lang, []).append(i)
        size = self.config.batch_size
        for lang, members in by_lang.items():
            lm = self.lm(lang)
            for k in range(0, len(members), size):
                chunk = members[k:k + size]
                for i, words in zip(chunk, self.top_words(lm, [targets[i] for i in chunk])):
                    out[i] = Guesses(clean_guesses(words, self.n))
        return out  # type: ignore[return-value]

    def top_words(self, lm, targets: Sequence[Target]) -> list[list[str]]:
        """One forward pass for these targets (one language): the N best words of each."""
        rows = [lm.encode(context_parts(t, self.config.context_chars), focus=0) for t in targets]
        logits = lm.logits(rows, [row.masks[0] for row in rows])
        return [lm.top_words(row_logits[0], self.n, row.after_space[0], row.left[0])
                for row, row_logits in zip(rows, logits)]
