"""run_child (workbench/infra/child_process.py): a child that does not stop on the signal passed on to it
is terminated after the grace period, then killed, so `workbench dashboard` always ends on Ctrl-C.
Streamlit listens before it installs its own signal handlers; a SIGINT in that window left it
running for good (seen on a busy 2-core machine). Here the child ignores the signals on purpose."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from tests.helpers.waiting import wait_until

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="POSIX signals")

# The child: ignores the given signals, says it is ready, then sleeps far longer than the test waits.
CHILD = textwrap.dedent("""
    import signal, sys, time
    for name in sys.argv[2:]:
        signal.signal(getattr(signal, name), signal.SIG_IGN)
    open(sys.argv[1], "w").close()
    time.sleep(600)
""")
# The parent: run_child over the child with a one-second grace, its status on stdout.
PARENT = textwrap.dedent("""
    import sys
    from workbench.infra.child_process import run_child
    print(run_child([sys.executable, "-c", sys.argv[1], *sys.argv[2:]], grace_s=1.0), flush=True)
""")


def _stop(tmp_path, ignored: list[str]) -> tuple[str, float]:
    """What run_child returned after a SIGINT to its process, and the seconds that took."""
    ready = tmp_path / "ready"
    parent = subprocess.Popen([sys.executable, "-c", PARENT, CHILD, str(ready), *ignored],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        wait_until(ready.exists, 60, "the child to start")
        os.kill(parent.pid, signal.SIGINT)  # to the parent alone, as `kill -INT PID` sends it
        started = time.monotonic()
        out, err = parent.communicate(timeout=60)
        assert parent.returncode == 0, err
        return out.strip(), time.monotonic() - started
    finally:
        if parent.poll() is None:
            os.killpg(parent.pid, signal.SIGKILL)
            parent.wait()


def test_a_child_that_stops_on_the_signal_ends_at_once(tmp_path):
    out, _ = _stop(tmp_path, [])
    assert out == str(128 + signal.SIGINT)  # the child's own end, passed on as 128 + N


def test_a_child_ignoring_the_signal_is_terminated_after_the_grace(tmp_path):
    out, seconds = _stop(tmp_path, ["SIGINT"])
    assert out == str(128 + signal.SIGTERM)
    assert seconds >= 1.0  # not before the grace period


def test_a_child_ignoring_sigterm_too_is_killed_after_a_second_grace(tmp_path):
    out, seconds = _stop(tmp_path, ["SIGINT", "SIGTERM"])
    assert out == str(128 + signal.SIGKILL)
    assert seconds >= 2.0
