"""`workbench dashboard` as a process (issue 15 item 7): a port in use is a message naming
--port, and stopping the command stops its Streamlit child, which must not stay listening."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.entry_point import WORKBENCH, wb
from tests.helpers.waiting import wait_until
from workbench.infra.local_guard import free_port
from workbench.store import RunStore


@pytest.fixture
def empty_store(tmp_path) -> Path:
    path = tmp_path / "runs.sqlite"
    RunStore(path).close()
    return path


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        found += [int(c) for c in task.read_text().split()]
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"  # a zombie has stopped; only its exit status is left to collect


def test_a_port_in_use_names_the_option_to_choose_another(empty_store):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = wb("dashboard", "--port", port, store=empty_store, timeout=120)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"127.0.0.1:{port}" in result.stderr and "--port" in result.stderr, result.stderr


@pytest.mark.skipif(sys.platform != "linux", reason="reads the process tree from /proc")
# SIGKILL: the workbench process cannot pass anything on; the kernel stops the child (Linux).
@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL], ids=["SIGTERM", "SIGINT", "SIGKILL"])
def test_stopping_the_command_stops_streamlit(empty_store, tmp_path, stop):
    port = free_port()
    log = tmp_path / "dashboard.log"
    with open(log, "w") as out:
        # A session of its own, as a terminal would start it; the signal goes to the workbench
        # process alone, as `kill PID` sends it (a terminal's Ctrl-C would reach the child too).
        proc = subprocess.Popen([WORKBENCH, "dashboard", "--port", str(port), "--store", str(empty_store)],
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                                env=dict(os.environ, STREAMLIT_BROWSER_GATHER_USAGE_STATS="false"))
    children = []
    try:
        def listening() -> bool:
            assert proc.poll() is None, log.read_text()[-2000:]
            return _listening(port)

        wait_until(listening, 120, f"the dashboard to listen on port {port}", interval=0.3)
        children = _children(proc.pid)
        assert children, "Streamlit should run as a child of the workbench process"
        os.kill(proc.pid, stop)
        proc.wait(timeout=60)
        # the child may take a moment after the parent
        wait_until(lambda: not any(_alive(c) for c in children), 30, "Streamlit to end with `workbench dashboard`",
                   interval=0.2)
        assert not _listening(port)
    finally:
        for pid in [proc.pid, *children]:  # whatever went wrong, leave nothing running
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        proc.wait(timeout=30)
