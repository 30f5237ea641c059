"""The one JSONL reader and writer: one JSON value per line, lines ended by "\\n" only.

Why not str.splitlines: it also breaks at U+2028, U+2029, U+0085, \\v, \\f, \\x1c-\\x1e and
a lone \\r, all of which JSON allows raw inside a string, so a valid record holding one of
them was cut in two. The reader splits on "\\n" alone (a trailing "\\r" is JSON white
space). The writer escapes U+2028, U+2029 and U+0085 as \\uXXXX, so other tools that do
split on them (editors, JavaScript, Python's splitlines) still see one record a line.

Every error names the file and the line; a value JSON cannot hold as Python (an integer
of more than 4300 digits, nesting deeper than the recursion limit) is refused the same
way instead of ending in a traceback.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from workbench.infra.errors import CorpusError

# Line and paragraph separators that JSON leaves raw but line splitters break at.
_ESCAPES = {"\u2028": "\\u2028", "\u2029": "\\u2029", "\x85": "\\u0085"}
_ESCAPE_TABLE = str.maketrans(_ESCAPES)


class JsonlError(CorpusError):
    """A JSONL (or JSON) file that cannot be read; the message names the file and line."""

    def __init__(self, path: str, line: int | None, problem: str) -> None:
        super().__init__(str(path), problem)
        self.line = line
        # "file F, line N: problem" (CorpusError would say "file F: problem").
        if line is not None:
            self.args = (f"file {path}, line {line}: {problem}",)


def dumps(value: Any) -> str:
    """One record as one line (without the "\\n"): UTF-8 kept, the line separators escaped."""
    return json.dumps(value, ensure_ascii=False).translate(_ESCAPE_TABLE)


def dumps_lines(values: Iterable[Any]) -> str:
    """Records as JSONL text, each line ended by "\\n"."""
    return "".join(dumps(v) + "\n" for v in values)


def write(path: str | Path, values: Iterable[Any]) -> int:
    """Write records to `path` all or nothing (via PATH.partial); returns the number written."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".partial")
    count = 0
    try:
        with tmp.open("w", encoding="utf-8", newline="\n") as out:
            for value in values:
                out.write(dumps(value) + "\n")
                count += 1
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return count


def read_text(path: str | Path) -> str:
    """A UTF-8 file (a BOM is dropped); an unreadable or non-UTF-8 file names the byte and line."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise JsonlError(str(path), None, f"cannot be read: {exc.strerror or exc}") from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise JsonlError(str(path), None, f"is not valid UTF-8 (byte {exc.start}, line {line})") from None


def loads(text: str, source: str, line: int | None = None) -> Any:
    """One JSON value; any failure (syntax, huge integer, deep nesting) names source and line."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        where = f" at column {exc.colno}" if line is not None else f" at line {exc.lineno}, column {exc.colno}"
        raise JsonlError(source, line, f"invalid JSON ({exc.msg}{where})") from None
    except RecursionError:
        raise JsonlError(source, line, "invalid JSON (nested too deeply)") from None
    except ValueError as exc:  # e.g. "Exceeds the limit (4300 digits) for integer string conversion"
        raise JsonlError(source, line, f"invalid JSON ({str(exc).split(';')[0]})") from None


def parse(text: str, source: str, *, objects: bool = True,
          on_error: Callable[[JsonlError], None] | None = None) -> Iterator[tuple[int, Any]]:
    """(line number, value) for every non-blank line of JSONL text; `objects`: each must be {…}.

    A bad line raises its JsonlError, unless `on_error` is given: then the error is handed to
    it and the line skipped, so a check (`workbench validate`) lists every bad line in one pass."""
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = loads(line, source, number)
            if objects and not isinstance(value, dict):
                raise JsonlError(source, number, f"a JSON {_kind(value)}, not an object")
        except JsonlError as exc:
            if on_error is None:
                raise
            on_error(exc)
            continue
        yield number, value


def read(path: str | Path, *, objects: bool = True,
         on_error: Callable[[JsonlError], None] | None = None) -> list[tuple[int, Any]]:
    """(line number, value) for every non-blank line of a JSONL file (`on_error`: as in parse)."""
    return list(parse(read_text(path), str(path), objects=objects, on_error=on_error))


def read_json(path: str | Path) -> Any:
    """A whole-file JSON document, with the same error naming as the JSONL reader."""
    return loads(read_text(path), str(path))


def _kind(value: Any) -> str:
    return {list: "list", str: "string", int: "number", float: "number", bool: "boolean",
            type(None): "null"}.get(type(value), type(value).__name__)
