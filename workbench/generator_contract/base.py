"""The one small contract every generator implements.

    generator = SomeGenerator(config, options)   # cheap: stores settings, imports nothing heavy
    generator.load()                             # loads models; may be slow
                                                 # (the engine calls load_for(langs))
    predictions = generator.generate(slots)      # same length and order as slots

A generator returns ranked candidates; the run engine (workbench.generation.pseudonym_choice) picks one
with the UPOS filter and leak guard, so every generator honours them the same way.

What a generator may see of the span it fills (SEES_LEVELS, least to most):
    context   the window with gaps, the label, the identifier type where the corpus has one
              (TAB's DIRECT/QUASI), the original's UPOS and length: nothing of the original
              text. The default, and every generator of papers 003 and 000.
    shape     also Slot.shape: the original's character classes (workbench.text.shape)
    original  also Slot.original: the original text (a date shift needs the date's value)
A generator declares the least it needs: the class attribute `sees`, and, where some
labels need more (or less), `sees_by_label()` from its config. The engine reveals to each
slot exactly `sees_for(slot.label)`, and records `sees_summary()` in the run signature.

Whether its seed changes what it writes: the class attribute `stochastic` (False: the same
pseudonyms whatever GenerationOptions.seed; the masked LMs rank, so fill-mask, ns3, nad and MTC
are deterministic), and `draws_with_seed()` where the config decides (an LLM with a fixed client
seed or temperature 0). `generate --seeds` and a benchmark's `seeds` run a stochastic generator
once per seed and a deterministic one once, saying so (workbench.generator_contract.seeds).
"""

from __future__ import annotations

import copy
import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from workbench.infra.errors import InvalidValue
from workbench.prediction_notes import FAILED, SERVER_ERROR, UNREACHABLE, is_server_error, is_unreachable  # noqa: F401 (the contract's names)
from workbench.text.slots import CONSISTENT_SCOPES, MODES, SEES_LEVELS, Slot

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

# window, seed and top_k are INTEGER columns of the run store, which holds signed 64-bit
# integers: a larger value would fail only when the run is stored (after its corpus snapshot),
# so it is refused with the options (issue 24 item 17).
INT64_MIN, INT64_MAX = -2**63, 2**63 - 1
# Slots per generate() call, and per transaction of the store: a run's results do not depend on
# it (not in its signature), only its memory and how much an interruption loses.
BATCH_SIZE = 32
# The leak guard's scopes (GenerationOptions.leak_scope); the first is 003's, the default.
LEAK_SCOPES = ("span", "corpus")


@dataclass(frozen=True, slots=True)
class GenerationOptions:
    """Options every generator honours where they apply (DESIGN "Generators")."""
    mode: str = "maskL"  # maskL | repL
    upos_filter: bool = False  # pick the first top-k candidate with the original's UPOS (003 §4)
    window: int = 2  # sentences either side of the target's (003 §4)
    seed: int = 13
    top_k: int = 10  # candidates asked for per slot (003 §4: 10)
    leak_guard: bool = False  # refuse candidates overlapping the original (003 §5.2, 004 §3.2)
    # One pseudonym per entity: off | document | corpus (workbench.generation.consistency). Default off,
    # so paper 003's runs (and their run ids) stay as they were.
    consistent: str = CONSISTENT_SCOPES[0]  # "off"
    # The morphology filter (issue 27): a stricter UPOS filter, the first candidate whose UPOS and
    # Case/Number/Definite match the original's; on, it turns the UPOS filter on too.
    morph_filter: bool = False
    # What the leak guard compares a candidate with (LEAK_SCOPES): "span", its own original (003
    # §5.2); "corpus", also every original value of the corpus (whole value, case ignored). A
    # corpus scope turns the guard on.
    leak_scope: str = "span"

    def __post_init__(self) -> None:
        # Values come from the CLI, benchmark TOML files and Python callers: check types too,
        # so `seed = "13"` or `upos_filter = "no"` in a TOML file is refused, never coerced.
        if self.mode not in MODES:
            raise InvalidValue(f"mode must be one of {', '.join(MODES)}, not {self.mode!r}")
        if self.consistent not in CONSISTENT_SCOPES:
            raise InvalidValue(f"consistent must be one of {', '.join(CONSISTENT_SCOPES)}, not {self.consistent!r}")
        for name in ("upos_filter", "leak_guard", "morph_filter"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidValue(f"{name} must be true or false, not {getattr(self, name)!r}")
        for name in ("window", "seed", "top_k"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidValue(f"{name} must be an integer, not {value!r}")
            if not INT64_MIN <= value <= INT64_MAX:
                raise InvalidValue(f"{name} must be an integer from {INT64_MIN} to {INT64_MAX} (what the run store "
                                   f"holds), not {value}")
        if self.window < 0:
            raise InvalidValue(f"window must be >= 0, not {self.window}")
        if self.top_k < 1:
            raise InvalidValue(f"top_k must be >= 1, not {self.top_k}")
        if self.leak_scope not in LEAK_SCOPES:
            raise InvalidValue(f"leak_scope must be one of {', '.join(LEAK_SCOPES)}, not {self.leak_scope!r}")
        # The implied options are set here, once, so the signature, the run record and the run
        # names read what the engine does.
        if self.morph_filter:
            object.__setattr__(self, "upos_filter", True)
        if self.leak_scope == "corpus":
            object.__setattr__(self, "leak_guard", True)


@dataclass(frozen=True, slots=True)
class Prediction:
    candidates: tuple[str, ...]  # best first; empty when the generator failed
    failed: bool = False
    # Why it failed, or what is worth knowing about it ("copied-from-context", "timeout" …).
    note: str = ""
    # Wall time attributed to this slot; None: not measured by the generator, and the engine
    # shares the batch's time out evenly. 0.0 is a measurement (an answer reused at no cost).
    seconds: float | None = None
    requests: int = 0  # model calls attributed to this slot (LLMs); 0 when not counted
    # Per-candidate UPOS when the generator knows them (the UPOS baseline: PUD gold tags).
    candidate_upos: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        if not self.failed and not self.candidates:
            raise ValueError("a prediction that did not fail needs at least one candidate")


@dataclass(frozen=True, slots=True)
class NoConfig:
    """For generators with nothing to configure beyond GenerationOptions."""


def check_sees_level(level: object, where: str) -> str:
    if level not in SEES_LEVELS:
        raise ValueError(f"{where}: unknown level {level!r} (levels: {', '.join(SEES_LEVELS)})")
    return level


class Generator(ABC):
    name: ClassVar[str]
    Config: ClassVar[type[DataclassInstance]] = NoConfig
    # What the generator sees of the span it fills, for every label sees_by_label() leaves out.
    # A class attribute; an instance may set its own where its config decides (the surrogate's table).
    sees: str = SEES_LEVELS[0]  # "context"
    # What it needs of the machine that runs it, read by an executor that places tasks
    # (workbench.cluster.resources): an Ollama server on the same node (its host is loopback), and
    # a GPU when the cluster has one and the config's `device` is not "cpu" (a torch model).
    needs_ollama: ClassVar[bool] = False
    uses_gpu: ClassVar[bool] = False
    # Whether GenerationOptions.seed changes the pseudonyms (random draws): several seeds of a
    # stochastic generator are several runs worth comparing; of a deterministic one, one run.
    stochastic: ClassVar[bool] = False
    # Spans per second on this project's 2-core CPU, for a benchmark's plan (workbench.benchmark.plan)
    # where the store has no run of the generator yet; None: not estimated without a stored run (the
    # LLM generators, ollama and intact, depend on the server and model).
    spans_per_second_estimate: ClassVar[float | None] = None

    # An instance of Config; a generator that reads its settings declares `config: ItsConfig`.
    config: DataclassInstance

    def __init__(self, config: object | None = None, options: GenerationOptions | None = None) -> None:
        config = config if config is not None else self.Config()
        if not isinstance(config, self.Config):
            raise TypeError(f"{self.name} takes a {self.Config.__name__}, not {type(config).__name__}")
        self.config = config
        self.options = options or GenerationOptions()

    def load(self) -> None:  # noqa: B027 - optional: a generator with nothing heavy keeps this no-op
        """Load models or data; called once before the first generate()."""

    def load_for(self, langs: Sequence[str]) -> None:
        """Load everything a run over documents of these languages needs. The engine calls it
        before it writes anything, so a model that cannot load leaves no run behind; a
        generator that loads per language on first use overrides it to load them now."""
        self.load()

    def build_missing(self, langs: Sequence[str]) -> None:  # noqa: B027 - optional, as load()
        """Build, once, the models the settings name that are made on this machine rather than
        installed (the offline test MLMs, the default MTC checkpoints), each build saying what it
        costs. The main job and the benchmarks call it before generating; `workbench generate`
        does not (a missing model stops it with the command that builds it)."""

    @abstractmethod
    def generate(self, slots: Sequence[Slot]) -> list[Prediction]:
        """Candidates for each slot, in the order given."""

    def draws_with_seed(self) -> bool:
        """Whether another seed gives other pseudonyms: `stochastic`, unless the config fixes the
        draws (an LLM generator with its own client seed, or temperature 0, overrides this)."""
        return self.stochastic

    def reads_features(self) -> bool:
        """Whether its slots carry Slot.features: `Case=Gen` where the engine reads the slot as a
        Swedish genitive (workbench.upos.genitive_reading), with the original's UD Case/Number/
        Definite where the morphology filter tagged them. The surrogate says True (it maps the
        base of a genitive original: `Eriks` as `Erik`), from its config."""
        return False

    def reads_original_upos(self) -> bool:
        """Whether it draws by the original's UPOS (Slot.upos) without the UPOS filter: the upos
        baseline. Such a run's output follows the name rule (workbench.generation.name_upos)."""
        return False

    def reinflects_genitive(self) -> bool:
        """Whether its candidates are base forms the engine puts in the Swedish genitive for a
        slot read as one (`Eva` -> `Evas`: workbench.text.swedish_genitive, issue 37): the random
        and upos baselines and the surrogate, by their `genitive` setting (on by default; it
        changes only Swedish runs). A generator whose model writes the form itself says False."""
        return False

    def keeps_origin(self) -> bool:
        """Whether the engine keeps, of its candidates, those of the original's origin (issue 41:
        workbench.generation.pseudonym_choice's origin filter): the masked-LM generators by their
        keep_origin setting. The surrogate draws by origin itself and says False."""
        return False

    def model_id(self) -> str:
        """What the run signature records as the model ('-' for none)."""
        return "-"

    def signature_config(self) -> dict:
        """The config as the run signature records it: every field but those declared with
        `field(metadata={"signature": False})`, settings that cannot change what is generated
        (how many requests are in flight), so changing them resumes the same run. A generator
        whose config holds "auto" settings overrides this to record what they resolved to."""
        return {f.name: _plain(getattr(self.config, f.name)) for f in dataclasses.fields(self.config)
                if f.metadata.get("signature", True)}

    def server(self) -> str | None:
        """The address of the server the generator asks (the Ollama host), or None. Recorded with
        the run (RunRecord.servers), never hashed: the same run resumes at another address."""
        return None

    def hashed_config(self, stored: dict) -> dict:
        """A stored run's config as this version's signature_config() would hash it. A generator
        whose signature once held a setting it now hashes as a constant (the LLM generators'
        server address, issue 37) maps it here, so the engine finds runs stored under the old
        id (workbench.generation.earlier_runs)."""
        return stored

    def sees_by_label(self) -> Mapping[str, str]:
        """Labels whose level differs from `sees`, e.g. {"DATETIME": "original"} for a date shift
        over shapes. From the class and the config only (never the corpus): the signature
        records it. Override this, not sees_for, so the signature and the engine agree."""
        return {}

    def sees_for(self, label: str) -> str:
        """The level the engine reveals for a span of this label (one of SEES_LEVELS)."""
        return self.sees_by_label().get(label, self.sees)

    def sees_summary(self) -> str:
        """The levels in one compact string for the signature and reports:
        `<default>` then `;<LABEL>=<level>` for each label that differs, labels sorted:
        "context", "shape", "shape;DATETIME=original", "context;PERSON=original"."""
        default = check_sees_level(self.sees, f"generator {self.name!r}: sees")
        overrides = sorted((str(label), check_sees_level(level, f"generator {self.name!r}: sees_by_label()[{label!r}]"))
                           for label, level in self.sees_by_label().items())
        return ";".join([default] + [f"{label}={level}" for label, level in overrides if level != default])


def _plain(value: object) -> object:
    """A field's value as dataclasses.asdict gives it (nested dataclasses as dicts, copies)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    return copy.deepcopy(value)
