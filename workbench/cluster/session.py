"""Joining or starting the Ray cluster a job runs on, and what is allowed to leave this machine.

Task arguments carry personal text (the shard's documents), so where they may go is decided
here, by the one loopback guard (workbench.local_guard):
- no address: a Ray cluster is started on this machine for the job and stopped after it,
  its node on 127.0.0.1. Ray 2.60 still listens on every interface for some of its services
  (the GCS, the raylet, idle workers) and protects them with a generated token
  (~/.ray/auth_token); nothing is sent to another machine.
- "auto": the cluster `ray start --head` runs here. It may have other machines joined to it;
  with more than one node the job needs allow_remote (`--allow-remote`), as a remote Ollama does.
- "ray://HOST:PORT": Ray Client to a cluster elsewhere; a host that is not loopback needs
  allow_remote.
A cluster the job joined is left running; one it started is shut down.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from workbench.cluster import ClusterOptions
from workbench.errors import WorkbenchError

# The custom resource an LLM task asks for: one per Ollama server. A local cluster started
# here has one per core (this machine's Ollama takes the requests); on a real cluster every
# node with an Ollama declares it: `ray start … --resources '{"ollama": 1}'`.
OLLAMA = "ollama"


def import_ray():
    try:
        import ray
    except ImportError:
        raise WorkbenchError("--executor ray needs Ray: pip install 'pseudonym-workbench[cluster]' "
                             "(or pip install ray)") from None
    return ray


@contextmanager
def ray_cluster(options: ClusterOptions, log: Callable[[str], None] | None = None) -> Iterator[object]:
    """The ray module, connected for the job; see the module docstring for which cluster.
    log(line): where the cluster is, and what of it listens beyond loopback."""
    say = log or (lambda line: None)
    check_address(options)
    if (options.address or "").startswith("ray://"):
        # Ray 2.60's client sends no token unless told to (read when ray is imported), and a cluster
        # started by `ray start` requires one (measured: a 30 s timeout otherwise); the token is
        # ~/.ray/auth_token or $RAY_AUTH_TOKEN. Who runs a cluster without tokens sets RAY_AUTH_MODE.
        os.environ.setdefault("RAY_AUTH_MODE", "token")
    ray = import_ray()
    if ray.is_initialized():  # a caller (a test, a notebook) connected already: use that cluster as it is
        yield ray
        return
    if options.address is None:
        cpus = options.num_cpus or os.cpu_count() or 1
        # address="local": a new cluster even where `ray start` runs one or $RAY_ADDRESS names one
        # (ray.init() alone would join that, which may be another machine).
        ray.init(address="local", num_cpus=cpus, resources={OLLAMA: cpus}, include_dashboard=False,
                 _node_ip_address="127.0.0.1", log_to_driver=False, configure_logging=False)
        say(f"ray: a cluster of {cpus} CPU(s) started on this machine (127.0.0.1) for this job; some of Ray's "
            "services listen on every interface, guarded by its token (~/.ray/auth_token); nothing leaves the machine")
    else:
        try:
            ray.init(address=options.address, log_to_driver=False, configure_logging=False)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise WorkbenchError(f"--address {options.address}: cannot join the Ray cluster: {exc}") from None
        _check_nodes(ray, options)
        nodes = sum(1 for n in ray.nodes() if n.get("Alive"))
        say(f"ray: joined {options.address} ({nodes} machine(s), {ray.cluster_resources().get('CPU', 0):.0f} CPUs)")
    try:
        yield ray
    finally:
        ray.shutdown()


def check_address(options: ClusterOptions) -> None:
    """A WorkbenchError for an address that is not a Ray address, or not this machine without
    allow_remote; nothing is connected to."""
    address = options.address
    if address is None:
        return
    if address == "auto":
        # Ray reads $RAY_ADDRESS before the cluster `ray start` runs here: it may name another machine.
        named = os.environ.get("RAY_ADDRESS", "")
        if named:
            _check_host(named if "://" in named else "ray://" + named, options.allow_remote, "$RAY_ADDRESS")
        return
    if not address.startswith("ray://"):
        raise WorkbenchError(f"--address {address!r}: give auto (the cluster `ray start` runs here) or ray://HOST:PORT")
    _check_host(address, options.allow_remote, "--address")


def _check_host(address: str, allow_remote: bool, where: str) -> None:
    from workbench.local_guard import host_of, is_local_host, parse_url
    host = host_of(parse_url("http://" + address.split("://", 1)[1], "ray"))
    if not is_local_host(host) and not allow_remote:
        raise WorkbenchError(f"{where} {address}: {host} is not this machine, and the tasks carry the documents' "
                             "text; to send them to a cluster you trust with them, add --allow-remote")


def _check_nodes(ray, options: ClusterOptions) -> None:
    nodes = [n for n in ray.nodes() if n.get("Alive")]
    if len(nodes) > 1 and not options.allow_remote:
        ray.shutdown()
        raise WorkbenchError(f"--address {options.address}: the cluster has {len(nodes)} machines, and the tasks "
                             "carry the documents' text to them; add --allow-remote to use it")
