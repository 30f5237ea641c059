"""Reading a file to import (`workbench import-run`): its JSON object and its hash.

Refused here, with the file (and the document) named: a file that cannot be read, is not
UTF-8 (a byte-order mark is dropped), is not JSON, lists a document twice or gives a key twice
in one object inside a document's entries (JSON allows both; the second value would silently
win), or is not an object of documents. What the entries say is checked against the corpus by
workbench.exchange.importers.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from workbench.infra.errors import CorpusError


class _Repeated(dict):
    """A JSON object that gave `key` twice. json calls the hook for inner objects first, before it
    knows where they sit, so the object is marked and the error worded once the file is read."""
    key: str


def _marked(pairs):
    seen: dict = {}
    repeated = None
    for key, value in pairs:
        if key in seen:
            repeated = repeated if repeated is not None else key
            continue
        seen[key] = value
    if repeated is None:
        return seen
    marked = _Repeated(seen)
    marked.key = repeated
    return marked


def _repeated_key(value) -> str | None:
    """A key given twice in one object anywhere inside `value`, or None. A stack, not recursion:
    json reads nesting as deep as the interpreter's recursion limit allows."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, _Repeated):
            return item.key
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


def _refuse_repeated_keys(path: Path, data) -> None:
    if isinstance(data, _Repeated):  # the file's own object: a document listed twice
        raise CorpusError(str(path), "document listed twice", doc_id=str(data.key))
    if not isinstance(data, dict):
        return
    for doc_id, entries in data.items():
        key = _repeated_key(entries) if not isinstance(entries, list) else None
        if key is not None:
            raise CorpusError(str(path), f"key {key!r} given twice in one object", doc_id=str(doc_id))
        for n, entry in enumerate(entries if isinstance(entries, list) else ()):
            key = _repeated_key(entry)
            if key is not None:
                raise CorpusError(str(path), f"key {key!r} given twice in one entry", doc_id=str(doc_id),
                                  span=f"entry #{n}")


def read_import_file(path: Path) -> tuple[dict, str]:
    """The file's JSON object and the sha256 of its bytes; a CorpusError says what is wrong."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise CorpusError(str(path), f"cannot read: {exc.strerror or exc}") from None
    try:
        # utf-8-sig: a byte-order mark (left by some Windows editors) is dropped, as for every other
        # JSON file the workbench reads (corpora, background knowledge).
        data = json.loads(raw.decode("utf-8-sig"), object_pairs_hook=_marked)
    except UnicodeDecodeError as exc:
        raise CorpusError(str(path), f"not UTF-8 (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise CorpusError(str(path), f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise CorpusError(str(path), "invalid JSON: nested too deeply") from None
    except ValueError as exc:  # an integer of more than 4300 digits
        raise CorpusError(str(path), f"invalid JSON: {str(exc).split(';')[0]}") from None
    _refuse_repeated_keys(path, data)
    if not isinstance(data, dict):
        raise CorpusError(str(path), f"expected an object {{doc_id: [[start, end, replacement], …]}}, "
                                     f"found a JSON {type(data).__name__}")
    return data, hashlib.sha256(raw).hexdigest()
