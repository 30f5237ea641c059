"""A job's own Ray cluster held open for tests/cluster/test_ray_security.py, run as a script.

It starts the cluster as `--executor ray` does (workbench.cluster.session.ray_cluster, no
--address), runs one task so that a worker listens too, prints one JSON line of what the test
inspects from outside, and keeps the cluster until a line arrives on stdin; then it prints the
Ray variables of its environment as they are after the job. With --exposed, the driver first
listens on every interface (0.0.0.0), as its Ray server would if Ray ignored the loopback
address: the job must refuse to start.
"""

from __future__ import annotations

import json
import os
import socket
import sys

from workbench.cluster.session import ray_cluster
from workbench.executors.options import ExecutorOptions
from workbench.infra.errors import WorkbenchError

RAY_VARIABLES = ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER")


def worker_pid() -> int:
    return os.getpid()


def say(record: dict) -> None:
    print(json.dumps(record), flush=True)


def main() -> None:
    lines: list[str] = []
    exposed = None
    if "--exposed" in sys.argv:
        exposed = socket.socket()
        exposed.bind(("0.0.0.0", 0))
        exposed.listen()
    try:
        with ray_cluster(ExecutorOptions("ray", num_cpus=1), lines.append) as ray:
            worker = ray.get(ray.remote(worker_pid).remote())
            say({"gcs": ray.get_runtime_context().gcs_address, "token": os.environ["RAY_AUTH_TOKEN_PATH"],
                 "worker": worker, "log": lines, "host": socket.gethostname()})
            sys.stdin.readline()
    except WorkbenchError as exc:
        say({"refused": str(exc), "exposed_port": exposed.getsockname()[1] if exposed else None})
    say({"after": {name: os.environ.get(name) for name in RAY_VARIABLES}})


if __name__ == "__main__":
    main()
