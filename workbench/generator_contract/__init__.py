"""The generator contract and the registry of generators by name."""

from workbench.generator_contract.base import FAILED, GenerationOptions, Generator, Prediction
from workbench.generator_contract.registry import GENERATORS, create_generator, generator_class

__all__ = ["FAILED", "GENERATORS", "GenerationOptions", "Generator", "Prediction", "create_generator",
           "generator_class"]
