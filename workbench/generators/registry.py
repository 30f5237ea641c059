"""Generators by name, imported lazily from "module:Class" targets.

Listing generators imports nothing heavy; asking for one imports only its module, and
its module imports torch / llama.cpp / langchain only inside load().
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib
from dataclasses import dataclass

from workbench.errors import WorkbenchError
from workbench.generators.base import GenerationOptions, Generator


@dataclass(frozen=True, slots=True)
class GeneratorSpec:
    name: str
    target: str  # "module:Class"
    summary: str
    extra: str | None = None  # the pyproject extra it needs, for the error message

    def load_class(self) -> type[Generator]:
        module, _, cls = self.target.partition(":")
        try:
            return getattr(importlib.import_module(module), cls)
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.startswith("workbench"):
                raise
            hint = f" `pip install -e '.[{self.extra}]'`" if self.extra else ""
            raise WorkbenchError(f"generator {self.name!r} needs {exc.name!r}:{hint}") from None


_SPECS = (
    GeneratorSpec("random", "workbench.adapters.baselines.random_baseline:RandomBaseline",
                  "random word form from the language's UD PUD vocabulary (003 §4)"),
    GeneratorSpec("upos", "workbench.adapters.baselines.upos_baseline:UposBaseline",
                  "random PUD form with the original span's UPOS (003 §4)"),
    GeneratorSpec("fill-mask", "workbench.adapters.masked_lm.fill_mask:FillMask",
                  "masked LM, one mask per span, top-k (003 §3.2)", extra="mlm"),
    GeneratorSpec("ns3", "workbench.adapters.masked_lm.multi_mask:NS3",
                  "masked LM, three masks per span filled left to right (000 §2)", extra="mlm"),
    GeneratorSpec("nad", "workbench.adapters.masked_lm.multi_mask:NAd",
                  "masked LM, one mask per original sub-word (000 §2)", extra="mlm"),
    GeneratorSpec("mtc", "workbench.adapters.mtc.generator:MTC",
                  "MLM with a vocabulary extended by generic noun phrases (EMAT, 000 §2)", extra="mlm"),
    GeneratorSpec("ss-mtc", "workbench.adapters.mtc.generator:SSMTC",
                  "MLM with a vocabulary extended by sensitive spans (EMAT, 000 §2-3)", extra="mlm"),
    GeneratorSpec("ollama", "workbench.adapters.ollama:OllamaGenerator",
                  "instruction LLM through Ollama, numbered masks, JSON answers (003 §3.2)", extra="llm"),
    GeneratorSpec("surrogate", "workbench.adapters.surrogate.generator:Surrogate",
                  "digits by shape, dates shifted per document, Faker words by label (002 §3.2)",
                  extra="surrogate"),
    GeneratorSpec("intact", "workbench.adapters.intact.generator:Intact",
                  "LLM generalisations checked by an inference attack, first not disclosed kept (004 §3)",
                  extra="llm"),
)
REGISTRY: dict[str, GeneratorSpec] = {s.name: s for s in _SPECS}


def get_spec(name: str) -> GeneratorSpec:
    if name not in REGISTRY:
        close = difflib.get_close_matches(name, REGISTRY, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else f" (known: {', '.join(REGISTRY)})"
        raise WorkbenchError(f"no generator {name!r}{hint}")
    return REGISTRY[name]


def build_config(cls: type[Generator], values: dict[str, str]) -> object:
    """The generator's frozen config dataclass from CLI strings, each converted to its field's type."""
    fields = {f.name: f for f in dataclasses.fields(cls.Config)}
    converted = {}
    for key, raw in values.items():
        name = key.replace("-", "_")
        if name not in fields:
            close = difflib.get_close_matches(name, fields, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f" (options: {', '.join(fields) or 'none'})"
            raise WorkbenchError(f"generator {cls.name!r} has no option {key!r}{hint}")
        default = fields[name].default
        kind = type(default) if default is not dataclasses.MISSING and default is not None else str
        try:
            if kind is bool:
                if raw.lower() not in ("1", "0", "true", "false", "yes", "no", "on", "off"):
                    raise ValueError(raw)
                converted[name] = raw.lower() in ("1", "true", "yes", "on")
            else:
                converted[name] = kind(raw)
        except ValueError:
            raise WorkbenchError(f"option {key!r} of {cls.name!r} must be a {kind.__name__}, not {raw!r}") from None
    try:
        return cls.Config(**converted)
    except (TypeError, ValueError) as exc:
        raise WorkbenchError(f"options of {cls.name!r}: {exc}") from None


def create_generator(name: str, config_values: dict[str, str] | None = None,
                     options: GenerationOptions | None = None) -> Generator:
    cls = get_spec(name).load_class()
    return cls(build_config(cls, config_values or {}), options or GenerationOptions())
