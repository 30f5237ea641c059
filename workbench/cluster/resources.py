"""What a task asks Ray for: a CPU, a GPU for a torch model on a cluster that has GPUs, an
Ollama server for an LLM generator (the custom resource workbench.cluster.session.OLLAMA).

An LLM task talks to the Ollama of the node it runs on: the generators' default host is
127.0.0.1, so the loopback guard holds on every node with no opt-in, and only nodes that
declare an Ollama get such tasks. A torch generator asks for a GPU only where the cluster
has one and its device is not pinned to the CPU: on a CPU-only cluster it runs on CPUs, as
`--device auto` does locally.
"""

from __future__ import annotations

from workbench.cluster.session import OLLAMA
from workbench.infra.devices import CPU


def task_resources(ray, generator) -> dict:
    """Keyword arguments for `remote.options(...)`, from what the generator declares it needs
    (Generator.needs_ollama, Generator.uses_gpu)."""
    if generator.needs_ollama:
        return {"num_cpus": 1, "resources": {OLLAMA: 1}}
    device = str(getattr(generator.config, "device", CPU))
    if generator.uses_gpu and device != CPU and ray.cluster_resources().get("GPU", 0) > 0:
        # max_calls=0: a GPU worker is kept for the next task (Ray's default for GPU tasks is a new
        # process each time, which would load the model again per shard).
        return {"num_cpus": 1, "num_gpus": 1, "max_calls": 0}
    return {"num_cpus": 1}
