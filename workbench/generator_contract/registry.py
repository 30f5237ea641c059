"""The generators by name (a workbench.infra.plugins Registry), imported lazily from "module:Class" targets.

Listing generators imports nothing heavy; asking for one imports only its module, and
its module imports torch / llama.cpp / langchain only inside load(). A new generator is one
Entry here and its class in the adapters/ folder, installed as workbench.adapters
(CONTRIBUTING.md, "Where a new piece goes").
"""

from __future__ import annotations

from collections.abc import Mapping

from workbench.generator_contract.base import GenerationOptions, Generator
from workbench.infra.plugins import Entry, Registry, build_config

GENERATORS: Registry[type[Generator]] = Registry("generator", [
    Entry("random", "workbench.adapters.baselines.random_baseline:RandomBaseline",
          "random word form from the language's UD PUD vocabulary (003 §4)"),
    Entry("upos", "workbench.adapters.baselines.upos_baseline:UposBaseline",
          "random PUD form with the original span's UPOS (003 §4)"),
    Entry("fill-mask", "workbench.adapters.masked_lm.fill_mask:FillMask",
          "masked LM, one mask per span, top-k (003 §3.2)", extra="mlm"),
    Entry("ns3", "workbench.adapters.masked_lm.multi_mask:NS3",
          "masked LM, three masks per span filled left to right (000 §2)", extra="mlm"),
    Entry("nad", "workbench.adapters.masked_lm.multi_mask:NAd",
          "masked LM, one mask per original sub-word (000 §2)", extra="mlm"),
    Entry("mtc", "workbench.adapters.mtc.generator:MTC",
          "MLM with a vocabulary extended by generic noun phrases (EMAT, 000 §2)", extra="mlm"),
    Entry("ss-mtc", "workbench.adapters.mtc.generator:SSMTC",
          "MLM with a vocabulary extended by sensitive spans (EMAT, 000 §2-3)", extra="mlm"),
    Entry("ollama", "workbench.adapters.ollama:OllamaGenerator",
          "instruction LLM through Ollama, numbered masks, JSON answers (003 §3.2)", extra="llm"),
    Entry("surrogate", "workbench.adapters.surrogate.generator:Surrogate",
          "digits by shape, dates shifted per document, Faker words by label (002 §3.2)", extra="surrogate"),
    Entry("intact", "workbench.adapters.intact.generator:Intact",
          "LLM generalisations checked by an inference attack, first not disclosed kept (004 §3)", extra="llm"),
])


def generator_class(name: str) -> type[Generator]:
    """The generator's class, importing its module (not yet its models)."""
    return GENERATORS.load(name)


def create_generator(name: str, config_values: Mapping[str, object] | None = None,
                     options: GenerationOptions | None = None) -> Generator:
    """The generator `name`, its Config built from `config_values` (the CLI's `-o` strings); not loaded."""
    cls = generator_class(name)
    config = build_config(cls.Config, config_values or {}, what=f"generator {name!r}")
    return cls(config, options or GenerationOptions())
