"""What a cluster started by this process listens on, read from its processes' sockets.

The job's own Ray cluster is started by the driver: the GCS, the raylet and Ray's other node
processes are its children, each given a folder inside the job's own on its command line; the
agents and the workers are the raylet's children. So the cluster is this process, the children
that name the job's folder, and everything below them (other children of the driver, such as a
test's helper server, are not Ray's). psutil reads the sockets (/proc on Linux; Ray ships psutil
and puts it on sys.path when it is imported).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from workbench.infra.local_guard import listens_on_loopback_only


@dataclass(frozen=True, slots=True)
class Listener:
    process: str  # "gcs_server", "raylet", "ray::IDLE", "this driver"
    pid: int
    address: str  # the IP the socket is bound to, as the OS reports it ("::" is every interface)
    port: int

    @property
    def loopback_only(self) -> bool:
        return listens_on_loopback_only(self.address)

    def where(self) -> str:
        host = f"[{self.address}]" if ":" in self.address else self.address
        return f"{self.process} (pid {self.pid}) on {host}:{self.port}"


def cluster_listeners(folder: str) -> tuple[list[Listener], list[str]]:
    """Every listening TCP socket of this process and of the processes below it that belong to the
    cluster whose files are in `folder`, and the processes whose sockets could not be read
    (described), which the caller cannot vouch for."""
    import psutil  # Ray's dependency: there whenever a cluster is
    me = psutil.Process()
    listeners, unread = [], []
    for proc in [me, *_cluster_processes(me, folder)]:
        try:
            name = "this driver" if proc.pid == me.pid else _name(proc)
            sockets = proc.net_connections(kind="inet")
        except psutil.NoSuchProcess:
            continue  # gone (a short-lived helper): it listens on nothing now
        except psutil.AccessDenied:
            unread.append(f"pid {proc.pid}")
            continue
        listeners += [Listener(name, proc.pid, s.laddr.ip, s.laddr.port)
                      for s in sockets if s.status == psutil.CONN_LISTEN]
    return sorted(set(listeners), key=lambda s: (s.process, s.pid, s.port, s.address)), unread


def _cluster_processes(me, folder: str) -> list:
    import psutil
    found = []
    for child in me.children():
        try:
            ours = folder in " ".join(child.cmdline())
            found += [child, *child.children(recursive=True)] if ours else []
        except psutil.NoSuchProcess:
            continue
        except psutil.AccessDenied:  # cannot tell: counted, and reported unread if its sockets are too
            found.append(child)
    return found


def _name(proc) -> str:
    """gcs_server, raylet, ray::IDLE, ray::RuntimeEnvAgent: what Ray calls its process (it sets
    the title of its Python processes), not the interpreter's name."""
    cmdline = proc.cmdline()
    first = (cmdline[0] if cmdline else proc.name()).split(" ", 1)[0]
    return os.path.basename(first) or proc.name()


def summary(listeners: list[Listener]) -> str:
    """'gcs_server 37241, raylet 41903 44827, this driver 46469': the ports each process listens on."""
    ports: dict[str, list[int]] = {}
    for listener in listeners:
        ports.setdefault(listener.process, []).append(listener.port)
    return ", ".join(f"{process} {' '.join(str(p) for p in sorted(set(numbers)))}"
                     for process, numbers in ports.items())
