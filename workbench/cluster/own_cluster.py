"""The Ray cluster a job starts on this machine (no --address): every port on 127.0.0.1, a token
of the job's own, and nothing of it left behind.

What Ray 2.60 does unasked, measured (docs/cluster.md, "The job's own cluster"):
- `ray.init(_node_ip_address="127.0.0.1")` is not loopback on Linux: Ray replaces a loopback
  address with the machine's own (services.resolve_ip_for_localhost), and its gRPC servers (the
  GCS, the raylet, every worker and this driver) then listen on every interface, IPv4 and IPv6;
  they listen on 127.0.0.1 only when the node's address is exactly 127.0.0.1. Ray keeps a
  loopback address where RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER is off (its default on macOS and
  Windows), so the job's cluster starts with it off.
- The token is ~/.ray/auth_token, made 0644 in a 0755 folder, kept after the job and shared by
  every cluster the account starts. The job's token is made here instead: 256 random bits, 0600
  in a folder of its own (0700), given to Ray by RAY_AUTH_TOKEN_PATH (the token loader reads
  RAY_AUTH_TOKEN first, so that is unset for the job).
- Ray's folder (logs, the object store's socket, spilled objects) goes inside the same private
  folder: Ray makes every folder of its own 0777 (/tmp/ray, or the one it is given), so only a
  folder around it, which Ray leaves alone, keeps other accounts out. All is removed when the job ends.
Then the cluster's sockets are read (workbench.cluster.listening): a port beyond loopback (another
Ray, another install such as ray[default]'s dashboard agent) stops the cluster before any task.
"""

from __future__ import annotations

import os
import secrets
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from workbench.infra.errors import WorkbenchError

LOOPBACK = "127.0.0.1"  # exactly this: Ray's servers compare the node's address to this string
TOKEN_FILE = "auth_token"


def check_auth_mode() -> None:
    """A WorkbenchError when $RAY_AUTH_MODE asks for a cluster other than one guarded by a token."""
    mode = os.environ.get("RAY_AUTH_MODE")
    if mode is not None and mode.lower() != "token":
        raise WorkbenchError(f"RAY_AUTH_MODE={mode}: the Ray cluster this job starts on this machine always "
                             "requires a token of its own (made for the job, removed after it); unset "
                             "RAY_AUTH_MODE, or start a cluster yourself and join it with --address auto "
                             "(docs/cluster.md)")


@contextmanager
def own_cluster(ray, cpus: int, resources: dict[str, float], say: Callable[[str], None]) -> Iterator[None]:
    """`ray` connected to a cluster of `cpus` CPUs started for the job, on loopback, guarded by the
    job's token; stopped, and its folder and token removed, when the block ends."""
    check_auth_mode()
    folder = Path(tempfile.mkdtemp(prefix="wb-ray-", dir=_temp_root()))  # 0700, made by mkdtemp
    try:
        token = folder / TOKEN_FILE
        fd = os.open(token, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(secrets.token_hex(32))  # as Ray's own generator: 256 bits
        with _job_environment(token):
            try:  # a start that fails half-way is stopped too
                try:
                    ray.init(address="local", num_cpus=cpus, resources=resources, include_dashboard=False,
                             _node_ip_address=LOOPBACK, _temp_dir=str(folder / "ray"), log_to_driver=False,
                             configure_logging=False)
                except (OSError, RuntimeError, ValueError) as exc:  # e.g. a socket path too long under $RAY_TMPDIR
                    raise WorkbenchError(f"ray: the cluster for this job could not start in {folder}: {exc}") from None
                say(_checked(ray, cpus, token))
                yield
            finally:
                ray.shutdown()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _temp_root() -> str:
    """Where Ray would put /tmp/ray ($RAY_TMPDIR, else $TMPDIR on Linux, else /tmp): its socket
    paths must stay under the 107 characters a Unix socket's name may have."""
    from ray._common.utils import get_default_system_temp_dir
    return get_default_system_temp_dir()


@contextmanager
def _job_environment(token: Path) -> Iterator[None]:
    """The environment Ray reads in this process and gives the cluster's processes, for the
    job; this process's own restored afterwards (a benchmark or a notebook carries on)."""
    import ray._private.ray_constants as ray_constants
    changes = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": str(token), "RAY_AUTH_TOKEN": None,
               ray_constants.ENABLE_RAY_CLUSTERS_ENV_VAR: "0"}
    before = {name: os.environ.get(name) for name in changes}
    cluster_before = ray_constants.ENABLE_RAY_CLUSTER
    try:
        _set(changes)
        ray_constants.ENABLE_RAY_CLUSTER = False  # read at import; this process imported Ray already
        _reload_auth()
        yield
    finally:
        _set(before)
        ray_constants.ENABLE_RAY_CLUSTER = cluster_before
        _reload_auth()


def _set(values: dict[str, str | None]) -> None:
    for name, value in values.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def _reload_auth() -> None:
    """Ray caches the mode (RayConfig) and the token (its C++ loader) per process."""
    from ray._raylet import AuthenticationTokenLoader, Config
    Config.initialize("")
    AuthenticationTokenLoader.instance().reset_cache()


def _checked(ray, cpus: int, token: Path) -> str:
    """The line that says what the cluster exposes, or a WorkbenchError (the caller stops the
    cluster) when a port listens beyond loopback, a process's sockets cannot be read, or the
    token's file or folder is open to others."""
    from workbench.cluster.listening import cluster_listeners, summary
    listeners, unread = cluster_listeners(str(token.parent))
    problems = [f"{listener.where()} listens beyond 127.0.0.1" for listener in listeners if not listener.loopback_only]
    problems += [f"the sockets of {pid} could not be read" for pid in unread]
    for path, wanted in ((token.parent, 0o700), (token, 0o600)):
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode != wanted:
            problems.append(f"{path} is mode {mode:o}, not {wanted:o}")
    if problems:
        raise WorkbenchError("ray: the cluster started for this job was stopped before any task: "
                             f"{'; '.join(problems)} "
                             f"(Ray {ray.__version__}; docs/cluster.md, \"The job's own cluster\"). To use Ray "
                             "anyway, start a cluster yourself and join it with --address auto")
    return (f"ray: a cluster of {cpus} CPU(s) started on this machine for this job; its {len(listeners)} listening "
            f"ports are all on 127.0.0.1 ({summary(listeners)}; read from its processes' sockets), and every call "
            f"needs the job's own token ({token}, mode 0600, removed with its folder when the job ends); "
            "nothing leaves the machine")
