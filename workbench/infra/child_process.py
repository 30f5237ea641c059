"""Run a server as a child process that never outlives the command that started it.

`workbench dashboard` runs Streamlit as a child. Without care, a SIGTERM to the workbench
process (a `kill`, a service manager, a closed terminal's SIGHUP) or a SIGINT sent to it
alone ends the parent at once and leaves Streamlit orphaned, still listening on the port
(with the store's personal data behind it). So the stop signals are passed on to the child
and the parent waits for it; on Linux the child is also told to stop should the parent die
without a chance to pass anything on (SIGKILL). A child that does not end within a grace
period of the stop signal is terminated, then killed: Streamlit listens before it installs its
own signal handlers, and a SIGINT in that window (a busy machine makes it seconds long) left it
running, half stopped, for good.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def _stop_with_parent():
    """Linux: a function for the child to call between fork and exec so that the kernel sends
    it SIGTERM when the parent dies. Looked up here, before the fork: the child should only
    call it, not import anything."""
    if sys.platform != "linux":
        return None
    import ctypes
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    PR_SET_PDEATHSIG = 1
    return lambda: prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM))


def run_child(command: Sequence[str], *, env: Mapping[str, str] | None = None, grace_s: float = 15.0) -> int:
    """Run `command` until it exits and return its exit status (128 + N when signal N ended it).

    A stop signal this process receives is passed on to the child and the child is waited
    for (Ctrl-C on a terminal reaches both; the child then gets it twice, which a server
    takes as "stop" all the same). A child still running grace_s seconds after the first stop
    signal is terminated, and killed grace_s seconds later; so is one left running should
    waiting itself fail.
    """
    child: subprocess.Popen | None = None
    stopped_at: list[float] = []  # when the first stop signal came

    def pass_on(signum, frame) -> None:
        if not stopped_at:
            stopped_at.append(time.monotonic())
        if child is not None and child.poll() is None:
            child.send_signal(signum)

    # The handlers come first: a signal while the child starts is then not lost, only passed on
    # late (the grace period's escalation ends a child that never got it).
    previous = {s: signal.signal(s, pass_on) for s in STOP_SIGNALS}
    try:
        child = subprocess.Popen(list(command), env=dict(env) if env is not None else None,
                                 preexec_fn=_stop_with_parent())
        status = _wait_stopping(child, stopped_at, grace_s)
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        if child is not None and child.poll() is None:
            child.terminate()
            try:
                child.wait(grace_s)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
    return 128 - status if status < 0 else status


def _wait_stopping(child: subprocess.Popen, stopped_at: list[float], grace_s: float) -> int:
    """The child's exit status. Once a stop signal came (stopped_at), each grace period that
    passes escalates: first SIGTERM, then SIGKILL. Waits in short slices, since a blocking
    wait is resumed after a signal handler returns and would never look at the clock."""
    escalations = (child.terminate, child.kill)
    done = 0
    while True:
        try:
            return child.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            graces = int((time.monotonic() - stopped_at[0]) // grace_s) if stopped_at else 0
            while done < min(graces, len(escalations)):
                escalations[done]()
                done += 1
