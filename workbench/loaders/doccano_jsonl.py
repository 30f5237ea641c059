"""doccano sequence-labelling JSONL exports, such as PGV-PII.

Each line: {"text": …, "label": [[start, end, LABEL], …], …metadata}. The language
comes from the `lang` metadata when it names one (PGV-PII: "gv-eng-swe-105_ENG.json"
→ en), else from the caller. The document id is, in order of preference: `doc_id`,
the stem of a PGV-PII `lang` file name, doccano's `id`, the line number.
"""

from __future__ import annotations

import re
from pathlib import Path

from workbench.errors import CorpusError
from workbench.loaders.files import read_jsonl
from workbench.loaders.validate import RawSpan, build_document
from workbench.model import LANGUAGES, Corpus

# Language names as they appear in doccano metadata, ISO 639-1/2/3 and PGV-PII's suffixes.
_LANG_NAMES = {"en": "en", "eng": "en", "english": "en", "sv": "sv", "swe": "sv", "swedish": "sv"}


def language_code_in(value: object) -> str | None:
    """The language code a metadata value states, known or not: "de", "ENG", "…_DEU.json" → "DEU"."""
    if not isinstance(value, str):
        return None
    if value.lower() in _LANG_NAMES or re.fullmatch(r"[A-Za-z]{2,3}", value):
        return value
    match = re.search(r"_([A-Za-z]{2,3})(?:\.json)?$", value)  # gv-eng-swe-105_ENG.json
    return match.group(1) if match else None


def language_from_metadata(value: object) -> str | None:
    """The workbench language a metadata value names; None if it names none or another."""
    code = language_code_in(value)
    return _LANG_NAMES.get(code.lower()) if code is not None else None


def _document_language(path: Path, number: int, doc_id: str, obj: dict) -> str:
    """The language from the `lang` (or `language`) metadata, or a message naming what is wrong."""
    for key in ("lang", "language"):
        code = language_code_in(obj.get(key))
        if code is not None:
            if code.lower() not in _LANG_NAMES:
                raise CorpusError(str(path), f"line {number}: unknown language {code!r} in the metadata (`{key}`: "
                                  f"{obj[key]!r}); known: {', '.join(LANGUAGES)} (or pass --lang en|sv)",
                                  doc_id=doc_id)
            return _LANG_NAMES[code.lower()]
    raise CorpusError(str(path), f"line {number}: no language in the metadata (`lang`) and none given "
                      "(pass --lang en|sv)", doc_id=doc_id)


def _doc_id(obj: dict, number: int) -> str:
    if "doc_id" in obj:
        return str(obj["doc_id"])
    if isinstance(obj.get("lang"), str) and obj["lang"].endswith(".json"):
        return obj["lang"][: -len(".json")]
    return str(obj.get("id", f"line{number}"))


def load_doccano_jsonl(path: str | Path, *, lang: str | None = None, name: str | None = None,
                       languages: tuple[str, ...] | None = None) -> Corpus:
    """Load a doccano export; `lang` overrides the metadata; `languages` keeps only those."""
    path = Path(path)
    if lang is not None and lang not in LANGUAGES:
        raise CorpusError(str(path), f"unknown language {lang!r} (known: {', '.join(LANGUAGES)})")
    documents = []
    for number, obj in read_jsonl(path):
        doc_id = _doc_id(obj, number)
        doc_lang = lang or _document_language(path, number, doc_id, obj)
        if languages is not None and doc_lang not in languages:
            continue
        labels = obj.get("label", obj.get("labels", []))
        if not isinstance(labels, list):
            raise CorpusError(str(path), f"line {number}: `label` is not a list", doc_id=doc_id)
        raw = []
        for i, item in enumerate(labels):
            if isinstance(item, dict):  # doccano's newer export writes objects
                item = [item.get("start_offset"), item.get("end_offset"), item.get("label")]
            if not (isinstance(item, list) and len(item) == 3):
                raise CorpusError(str(path), f"line {number}: label #{i} is not [start, end, LABEL]",
                                  doc_id=doc_id, span=f"#{i} {item!r}")
            raw.append(RawSpan(item[0], item[1], str(item[2])))
        meta = {k: v for k, v in obj.items() if k in ("id", "pair", "lang") and v is not None}
        documents.append(build_document(str(path), doc_id, obj.get("text"), doc_lang, raw, meta=meta))
    try:
        return Corpus(name or path.stem, str(path), tuple(documents))
    except ValueError as exc:
        raise CorpusError(str(path), str(exc)) from None
