"""The `workbench` console script for tests that run it as a subprocess.

CI runs `.venv/bin/python -m pytest` without activating the virtualenv, so `workbench` need
not be on PATH: take the script beside the interpreter running the tests.
"""

from __future__ import annotations

import sys
from pathlib import Path

_SCRIPT = Path(sys.executable).with_name("workbench")
WORKBENCH = str(_SCRIPT) if _SCRIPT.exists() else "workbench"
