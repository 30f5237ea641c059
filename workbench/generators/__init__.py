"""The generator contract and the registry of generators by name."""

from workbench.generators.base import FAILED, GenerationOptions, Generator, Prediction
from workbench.generators.registry import REGISTRY, GeneratorSpec, create_generator, get_spec

__all__ = ["FAILED", "GenerationOptions", "Generator", "Prediction", "REGISTRY", "GeneratorSpec",
           "create_generator", "get_spec"]
