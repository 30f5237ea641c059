"""Run a server as a child process that never outlives the command that started it.

`workbench dashboard` runs Streamlit as a child. Without care, a SIGTERM to the workbench
process (a `kill`, a service manager, a closed terminal's SIGHUP) or a SIGINT sent to it
alone ends the parent at once and leaves Streamlit orphaned, still listening on the port
(with the store's personal data behind it). So the stop signals are passed on to the child
and the parent waits for it; on Linux the child is also told to stop should the parent die
without a chance to pass anything on (SIGKILL).
"""

from __future__ import annotations

import signal
import subprocess
import sys
from typing import Mapping, Sequence

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
    takes as "stop" all the same). Should waiting itself fail, the child is terminated, and
    killed after grace_s seconds.
    """
    child = subprocess.Popen(list(command), env=dict(env) if env is not None else None,
                             preexec_fn=_stop_with_parent())

    def pass_on(signum, frame) -> None:
        if child.poll() is None:
            child.send_signal(signum)

    previous = {s: signal.signal(s, pass_on) for s in STOP_SIGNALS}
    try:
        status = child.wait()
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        if child.poll() is None:
            child.terminate()
            try:
                child.wait(grace_s)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
    return 128 - status if status < 0 else status
