"""The `workbench` console script for tests that run it as a subprocess: every test that runs
the CLI goes through here, so all of them run the entry point a user runs.

CI runs `.venv/bin/python -m pytest` without activating the virtualenv, so `workbench` need
not be on PATH: take the script beside the interpreter running the tests.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

_SCRIPT = Path(sys.executable).with_name("workbench")
WORKBENCH = str(_SCRIPT) if _SCRIPT.exists() else "workbench"


def workbench_command(*args) -> list[str]:
    """`workbench ARGS...` as an argument list (for Popen, or to run the same command twice)."""
    return [WORKBENCH, *map(str, args)]


def wb(*args, store=None, cwd=None, env=None, timeout: float = 600) -> subprocess.CompletedProcess:
    """Run `workbench ARGS... [--store STORE]` (each argument str()-ed) and capture its output as
    text; the caller checks the exit code. `timeout` only keeps a hung command from hanging the suite."""
    store_option = ("--store", store) if store is not None else ()
    return subprocess.run(workbench_command(*args, *store_option), capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=timeout)


def wb_ok(*args, **kwargs) -> str:
    """Run `workbench ARGS...`, check that it succeeded (else fail with its stderr), return stdout."""
    result = wb(*args, **kwargs)
    assert result.returncode == 0, (result.returncode, result.stderr)
    return result.stdout
