"""The settings of an EMAT build, and every default and list of choices, in one light module.

Plain frozen dataclasses (no torch), so the CLI reads its option defaults and choices from
here (`workbench mtc train --help` shows these values) without loading a model library.

    KINDS               the two phrase vocabularies: ss-mtc (sensitive spans), mtc (noun phrases)
    INITS               how phrase rows start: mean of their sub-words' rows, or random
    VocabularySettings  which phrases, how many training sentences each
    TrainSettings       training the phrase rows
    BuildRecipe         all of it, plus the base model and the data split
"""

from __future__ import annotations

from dataclasses import dataclass, field

from workbench.infra.errors import WorkbenchError

KINDS = ("ss-mtc", "mtc")
INITS = ("subword", "random")
# Occurrences a phrase needs by default (paper: 500 on Wikipedia). SS-MTC's spans are rarer
# (half of TAB test: 391 multi-word span texts occur twice or more, 146 three times).
DEFAULT_MIN_COUNT = {"ss-mtc": 2, "mtc": 3}
# MTC's default tagged text per language: the UD training treebanks (gold UPOS/deprel).
UD_FILES = {
    "en": ("en_ewt/en_ewt-ud-train.conllu", "en_ewt/en_ewt-ud-dev.conllu"),
    "sv": ("sv_talbanken/sv_talbanken-v1relabelled-train.conllu", "sv_talbanken/sv_talbanken-ud-dev.conllu"),
}
# The default checkpoints (what the generators load without -o checkpoint=DIR): SS-MTC learns
# from a document split of this shipped corpus; only English has one.
DEFAULT_CORPUS = {"en": "tab-test"}


@dataclass(frozen=True, slots=True)
class VocabularySettings:
    # Paper: >= 500 occurrences on Wikipedia and 50 sentences per phrase; the text here is
    # some 10,000 times smaller (half of TAB test: 52k words; EWT train+dev: 230k words).
    min_count: int = DEFAULT_MIN_COUNT["mtc"]
    sentences_per_phrase: int = 50
    max_phrases: int | None = None
    test_fraction: float = 0.1  # sentences per phrase held out for measuring (paper: 5 % + 5 %)
    seed: int = 13


@dataclass(frozen=True, slots=True)
class TrainSettings:
    init: str = INITS[0]  # subword | random: how phrase rows start (see head.ExtendedHead.initialise)
    epochs: int = 20  # paper: 10 (MTC) / 20 (SS-MTC)
    lr: float = 0.01  # Adam, on the phrase rows
    batch_size: int = 64  # pairs per step
    token_pairs: float = 1.0  # single-token pairs per phrase pair (0 = phrase pairs only)
    train_head: bool = False  # also train the head transform and token bias (not the tied token rows)
    max_tokens: int = 128  # tokens per training sentence, cropped around the mask
    seed: int = 13

    def __post_init__(self) -> None:
        if self.init not in INITS:
            raise ValueError(f"init must be one of {', '.join(INITS)}, not {self.init!r}")
        if self.epochs < 1 or self.batch_size < 1 or self.lr <= 0 or self.token_pairs < 0:
            raise ValueError("epochs, batch_size and lr must be positive, token_pairs >= 0")


@dataclass(frozen=True, slots=True)
class BuildRecipe:
    kind: str  # ss-mtc | mtc
    # A local *ForMaskedLM directory, a hub id where a hub is reachable, or "offline":
    # the offline test MLM of the language (workbench.mlm.offline).
    base_model: str = "offline"
    lang: str = "en"
    vocabulary: VocabularySettings = field(default_factory=VocabularySettings)
    train: TrainSettings = field(default_factory=TrainSettings)
    # SS-MTC: share of the corpus's documents used for training (the rest is held out).
    train_fraction: float = 0.5
    split_seed: int = 13
    # MTC: CoNLL-U files (default: UD_FILES of the language under ud-train).
    conllu: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise WorkbenchError(f"kind must be one of {', '.join(KINDS)}, not {self.kind!r}")


def default_vocabulary(kind: str, *, min_count: int | None = None, **overrides) -> VocabularySettings:
    """Vocabulary settings with the kind's default threshold (DEFAULT_MIN_COUNT); overrides
    that are None keep their default."""
    if min_count is None:
        min_count = DEFAULT_MIN_COUNT[kind]
    return VocabularySettings(min_count=min_count, **{k: v for k, v in overrides.items() if v is not None})


def default_of(cls, name: str):
    """A dataclass field's default (for CLI option defaults that must match the library's)."""
    f = cls.__dataclass_fields__[name]
    return f.default_factory() if callable(f.default_factory) else f.default
