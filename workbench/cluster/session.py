"""Joining or starting the Ray cluster a job runs on, and what is allowed to leave this machine.

Task arguments carry personal text (the shard's documents), so where they may go is decided
here, by the one loopback guard (workbench.infra.local_guard):
- no address: a Ray cluster is started on this machine for the job and stopped after it
  (workbench.cluster.own_cluster): every port it opens on 127.0.0.1, checked from its processes'
  sockets, every call guarded by a token made for the job and removed after it; nothing is sent
  to another machine. $RAY_AUTH_MODE other than token is refused for it.
- "auto": the cluster `ray start --head` runs here (the address it recorded, or $RAY_ADDRESS;
  never just any Ray process found running here). It may have other machines joined to it;
  with more than one node the job needs allow_remote (`--allow-remote`), as a remote Ollama does.
- "ray://HOST:PORT": Ray Client to a cluster elsewhere; a host that is not loopback needs
  allow_remote.
A cluster the job joined is left running; one it started is shut down.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path

from workbench.executors.options import ExecutorOptions
from workbench.infra.errors import WorkbenchError

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
def ray_cluster(options: ExecutorOptions, log: Callable[[str], None] | None = None) -> Iterator[object]:
    """The ray module, connected for the job; see the module docstring for which cluster.
    log(line): where the cluster is, and what guards it."""
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
        from workbench.cluster.own_cluster import own_cluster
        cpus = options.num_cpus or os.cpu_count() or 1
        # ray.init(address="local"): a new cluster even where `ray start` runs one or $RAY_ADDRESS
        # names one (ray.init() alone would join that, which may be another machine).
        with own_cluster(ray, cpus, {OLLAMA: cpus}, say):
            yield ray
        return
    address = _auto_address() if options.address == "auto" else options.address
    try:
        ray.init(address=address, log_to_driver=False, configure_logging=False)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise WorkbenchError(f"--address {options.address}: cannot join the Ray cluster: {exc}") from None
    _check_nodes(ray, options)
    nodes = sum(1 for n in ray.nodes() if n.get("Alive"))
    say(f"ray: joined {options.address} ({nodes} machine(s), {ray.cluster_resources().get('CPU', 0):.0f} CPUs; "
        f"{_authentication(ray, options)})")
    try:
        yield ray
    finally:
        ray.shutdown()


def _auto_address() -> str:
    """What auto means: $RAY_ADDRESS, else the cluster `ray start` recorded on this machine. Not
    Ray's own last resort for "auto", any Ray process it finds running here: that may be another
    job's own cluster (its token refuses the join, after minutes of retries) or another account's."""
    named = os.environ.get("RAY_ADDRESS")
    if named:
        return named
    from ray._private.utils import get_ray_address_file
    record = Path(get_ray_address_file(None))
    address = record.read_text().strip() if record.is_file() else ""
    if not address:
        raise WorkbenchError(f"--address auto: cannot join the Ray cluster: no cluster started by `ray start` on "
                             f"this machine ({record} does not exist) and $RAY_ADDRESS is not set")
    return address


def joined_before_new_store(options: ExecutorOptions, store: object,
                            log: Callable[[str], None] | None = None) -> AbstractContextManager:
    """ray_cluster(options, log) when `store` is the path of a store not there yet, else nothing to
    enter: a new store's runs all need the cluster, and one that cannot be joined must leave no
    empty store behind. An existing store is opened first, so a finished run needs no cluster."""
    if isinstance(store, (str, os.PathLike)) and not Path(store).exists():
        return ray_cluster(options, log)
    return nullcontext()


def check_address(options: ExecutorOptions) -> None:
    """A WorkbenchError for an address that is not a Ray address, or not this machine without
    allow_remote; nothing is connected to."""
    address = options.address
    if address is None:
        # the job's own cluster: token authentication, whatever the shell says
        from workbench.cluster.own_cluster import check_auth_mode
        check_auth_mode()
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
    from workbench.infra.local_guard import host_of, is_local_host, parse_url
    host = host_of(parse_url("http://" + address.split("://", 1)[1], "ray"))
    if not is_local_host(host) and not allow_remote:
        raise WorkbenchError(f"{where} {address}: {host} is not this machine, and the tasks carry the documents' "
                             "text; to send them to a cluster you trust with them, add --allow-remote")


def _authentication(ray, options: ExecutorOptions) -> str:
    """What guards the joined cluster, as far as this machine can tell: a driver that joined
    without a token proves it needs none; with one, the GCS of `auto` (on this machine) is asked
    once without it."""
    from ray._raylet import AuthenticationMode, get_authentication_mode
    open_to_all = "anyone who reaches its ports can run code in it and read what it holds"
    if get_authentication_mode() != AuthenticationMode.TOKEN:
        return f"it took this driver without a token (RAY_AUTH_MODE): {open_to_all}"
    if options.address == "auto":
        answered = _answers_without_token(ray.get_runtime_context().gcs_address)
        if answered:
            return f"its GCS answers calls without a token: {open_to_all}"
        if answered is False:
            return "its GCS refuses calls without the cluster's token"
    return "this driver sends the cluster's token; whether the cluster requires it is not checked from here"


def _answers_without_token(gcs_address: str) -> bool | None:
    """Whether the GCS answers a harmless call that carries no token; None: not known (no grpc, TLS,
    no answer)."""
    try:
        import grpc
    except ImportError:
        return None
    with grpc.insecure_channel(gcs_address) as channel:
        try:
            channel.unary_unary("/ray.rpc.NodeInfoGcsService/GetClusterId")(b"", timeout=10)
        except grpc.RpcError as exc:
            return False if exc.code() == grpc.StatusCode.UNAUTHENTICATED else None
    return True


def _check_nodes(ray, options: ExecutorOptions) -> None:
    nodes = [n for n in ray.nodes() if n.get("Alive")]
    if len(nodes) > 1 and not options.allow_remote:
        ray.shutdown()
        raise WorkbenchError(f"--address {options.address}: the cluster has {len(nodes)} machines, and the tasks "
                             "carry the documents' text to them; add --allow-remote to use it")
