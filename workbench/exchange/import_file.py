"""Reading a file to import (`workbench import-run`): its JSON object and its hash.

Refused here, with the file (and the document) named: a file that cannot be read, is not
UTF-8 (a byte-order mark is dropped), is not JSON, lists a document twice (JSON allows it;
the second list would silently win), or is not an object of documents. What the entries
say is checked against the corpus by workbench.exchange.importers.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from workbench.errors import CorpusError


class _Duplicate(ValueError):
    pass


def _no_duplicates(pairs):
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise _Duplicate(key)
        seen[key] = value
    return seen


def read_import_file(path: Path) -> tuple[dict, str]:
    """The file's JSON object and the sha256 of its bytes; a CorpusError says what is wrong."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise CorpusError(str(path), f"cannot read: {exc.strerror or exc}") from None
    try:
        # utf-8-sig: a byte-order mark (left by some Windows editors) is dropped, as for every other
        # JSON file the workbench reads (corpora, background knowledge).
        data = json.loads(raw.decode("utf-8-sig"), object_pairs_hook=_no_duplicates)
    except _Duplicate as exc:
        raise CorpusError(str(path), "document listed twice", doc_id=str(exc)) from None
    except UnicodeDecodeError as exc:
        raise CorpusError(str(path), f"not UTF-8 (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise CorpusError(str(path), f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise CorpusError(str(path), "invalid JSON: nested too deeply") from None
    except ValueError as exc:  # an integer of more than 4300 digits
        raise CorpusError(str(path), f"invalid JSON: {str(exc).split(';')[0]}") from None
    if not isinstance(data, dict):
        raise CorpusError(str(path), f"expected an object {{doc_id: [[start, end, replacement], …]}}, "
                                     f"found a JSON {type(data).__name__}")
    return data, hashlib.sha256(raw).hexdigest()
