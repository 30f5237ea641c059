"""Reading corpus files with errors that name the file (and line) instead of a traceback.

The reading itself lives in workbench.infra.jsonl, shared with every other JSON/JSONL reader.
"""

from __future__ import annotations

from pathlib import Path

from workbench.infra import jsonl
from workbench.loaders import problems


def read_text(path: Path) -> str:
    return jsonl.read_text(path)


def read_json(path: Path):
    return jsonl.read_json(path)


def read_jsonl(path: Path) -> list[tuple[int, dict]]:
    """(line number, object) for every good non-blank line. A bad line (not JSON, not an object)
    stops a load for work at the first one, as before; under `workbench validate`
    (problems.collecting) each is kept as an error naming its line and the file is read on."""
    return jsonl.read(path, on_error=problems.error)
