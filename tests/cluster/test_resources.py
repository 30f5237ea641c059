"""What a task asks Ray for (workbench.cluster.resources), against clusters with and without GPUs."""

from __future__ import annotations

import pytest

from workbench.cluster.resources import task_resources
from workbench.pipeline import make_generator


class _Cluster:
    """The one thing task_resources asks of ray: the cluster's resources."""

    def __init__(self, **resources) -> None:
        self.resources = {"CPU": 8.0, **resources}

    def cluster_resources(self) -> dict:
        return self.resources


@pytest.mark.parametrize("name, settings, gpus, wanted", [
    ("fill-mask", {}, 4.0, {"num_cpus": 1, "num_gpus": 1, "max_calls": 0}),  # device auto: the GPU where there is one
    ("mtc", {}, 4.0, {"num_cpus": 1, "num_gpus": 1, "max_calls": 0}),
    ("fill-mask", {"device": "cpu"}, 4.0, {"num_cpus": 1}),  # pinned to the CPU: no GPU asked
    ("fill-mask", {}, 0.0, {"num_cpus": 1}),  # a CPU-only cluster runs it on CPUs, as --device auto does
    ("ollama", {}, 4.0, {"num_cpus": 1, "resources": {"ollama": 1}}),  # the node's own Ollama
    ("intact", {}, 0.0, {"num_cpus": 1, "resources": {"ollama": 1}}),
    ("random", {}, 4.0, {"num_cpus": 1}),
    ("surrogate", {}, 4.0, {"num_cpus": 1}),
])
def test_a_task_asks_for_what_its_generator_needs(name, settings, gpus, wanted):
    assert task_resources(_Cluster(GPU=gpus) if gpus else _Cluster(), make_generator(name, settings, {})) == wanted


def test_what_a_generator_declares_is_what_it_gets_registered_or_not():
    """The executor reads the class's declarations, not its registry entry or pip extra."""
    from workbench.generator_contract.base import Generator

    class NeedsOllama(Generator):
        name = "not-registered"
        needs_ollama = True

        def generate(self, slots):
            return []

    assert task_resources(_Cluster(), NeedsOllama()) == {"num_cpus": 1, "resources": {"ollama": 1}}
    fill_mask = make_generator("fill-mask", {}, {})
    assert fill_mask.uses_gpu and not fill_mask.needs_ollama
    assert not make_generator("random", {}, {}).uses_gpu
