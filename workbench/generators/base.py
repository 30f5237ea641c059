"""The one small contract every generator implements.

    generator = SomeGenerator(config, options)   # cheap: stores settings, imports nothing heavy
    generator.load()                             # loads models; may be slow
    predictions = generator.generate(slots)      # same length and order as slots

A generator returns ranked candidates; the run engine (workbench.selection) picks one
with the UPOS filter and leak guard, so every generator honours them the same way.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import ClassVar, Sequence

from workbench.text.slots import MODES, Slot

FAILED = "[FAILED]"  # 003 §4: what a span gets when the model gave no usable answer


@dataclass(frozen=True, slots=True)
class GenerationOptions:
    """Options every generator honours where they apply (DESIGN "Generators")."""
    mode: str = "maskL"  # maskL | repL
    upos_filter: bool = False  # pick the first top-k candidate with the original's UPOS (003 §4)
    window: int = 2  # sentences either side of the target's (003 §4)
    seed: int = 13
    top_k: int = 10  # candidates asked for per slot (003 §4: 10)
    leak_guard: bool = False  # refuse candidates overlapping the original (003 §5.2, 004 §3.2)

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, not {self.mode!r}")
        if self.window < 0 or self.top_k < 1:
            raise ValueError("window must be >= 0 and top_k >= 1")


@dataclass(frozen=True, slots=True)
class Prediction:
    candidates: tuple[str, ...]  # best first; empty when the generator failed
    failed: bool = False
    # Why it failed, or what is worth knowing about it ("copied-from-context", "timeout" …).
    note: str = ""
    seconds: float = 0.0  # wall time attributed to this slot
    requests: int = 0  # model calls attributed to this slot (LLMs); 0 when not counted
    # Per-candidate UPOS when the generator knows them (the UPOS baseline: PUD gold tags).
    candidate_upos: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        if not self.failed and not self.candidates:
            raise ValueError("a prediction that did not fail needs at least one candidate")


@dataclass(frozen=True, slots=True)
class NoConfig:
    """For generators with nothing to configure beyond GenerationOptions."""


class Generator(ABC):
    name: ClassVar[str]
    Config: ClassVar[type] = NoConfig

    def __init__(self, config: object | None = None, options: GenerationOptions | None = None) -> None:
        self.config = config if config is not None else self.Config()
        if not isinstance(self.config, self.Config):
            raise TypeError(f"{self.name} takes a {self.Config.__name__}, not {type(self.config).__name__}")
        self.options = options or GenerationOptions()

    def load(self) -> None:
        """Load models or data; called once before the first generate()."""

    @abstractmethod
    def generate(self, slots: Sequence[Slot]) -> list[Prediction]:
        """Candidates for each slot, in the order given."""

    def model_id(self) -> str:
        """What the run signature records as the model ('-' for none)."""
        return "-"
