"""Reading corpus files with errors that name the file (and line) instead of a traceback."""

from __future__ import annotations

import json
from pathlib import Path

from workbench.errors import CorpusError


def read_text(path: Path) -> str:
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise CorpusError(str(path), f"cannot be read: {exc.strerror or exc}") from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise CorpusError(str(path), f"is not valid UTF-8 (byte {exc.start}, line {line})") from None


def read_json(path: Path):
    text = read_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise CorpusError(str(path), f"is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None


def read_jsonl(path: Path) -> list[tuple[int, dict]]:
    """(line number, object) for every non-blank line."""
    records = []
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CorpusError(str(path), f"line {number} is not valid JSON: {exc.msg} at column {exc.colno}") from None
        if not isinstance(obj, dict):
            raise CorpusError(str(path), f"line {number} is a JSON {type(obj).__name__}, not an object")
        records.append((number, obj))
    return records
