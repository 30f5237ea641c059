"""doccano sequence-labelling JSONL exports, such as PGV-PII.

Each line: {"text": …, "label": [[start, end, LABEL], …], …metadata}, or doccano's object
form {"text": …, "entities": [{"id": 11, "start_offset": 0, "end_offset": 11, "label": …}, …],
"relations": […]} (a project with relations). The language comes from the `lang` metadata
when it names one (PGV-PII: "gv-eng-swe-105_ENG.json" → en), else from the caller. The
document id is, in order of preference: `doc_id`, the stem of a PGV-PII `lang` file name,
doccano's `id`, the line number.

Entities: a span may carry the id of the entity it mentions, and coreference relations
join spans into one entity; the forms are in workbench.loaders.doccano_entities, e.g.

    {"text": "Ahmed Karim left. Ahmed came back.", "lang": "en",
     "label": [[0, 11, "PERSON", "E1"], [18, 23, "PERSON", "E1"]]}
    {"text": "Ahmed Karim left. Ahmed came back.", "lang": "en",
     "entities": [{"id": 1, "start_offset": 0, "end_offset": 11, "label": "PERSON"},
                  {"id": 2, "start_offset": 18, "end_offset": 23, "label": "PERSON"}],
     "relations": [{"id": 1, "from_id": 2, "to_id": 1, "type": "coref"}]}

Both make "Ahmed Karim" and "Ahmed" one entity (id "<doc_id>|E1", "<doc_id>|linked:1").
Spans the file says nothing about are grouped by the rule of workbench.loaders.entity_grouping.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NoReturn

from workbench.data_model import LANGUAGE_CODES_3, LANGUAGE_NAMES, LANGUAGES, Corpus
from workbench.infra.errors import CorpusError
from workbench.loaders import problems
from workbench.loaders.doccano_entities import file_entities, parse_span
from workbench.loaders.files import read_jsonl
from workbench.loaders.validate import RawSpan, build_document

# Language names as they appear in doccano metadata, ISO 639-1/2/3 and PGV-PII's suffixes, lower-cased.
_LANG_NAMES = {written.lower(): lang for lang in LANGUAGES
               for written in (lang, LANGUAGE_CODES_3[lang], LANGUAGE_NAMES[lang])}


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


def _raw_spans(path: Path, number: int, doc_id: str, obj: dict) -> list[RawSpan]:
    """The line's spans with the entity ids the file states (none: the grouping rule decides)."""
    def fail(problem: str, span: str | None) -> NoReturn:
        raise CorpusError(str(path), f"line {number}: {problem}", doc_id=doc_id, span=span)

    key = "entities" if "entities" in obj else "label" if "label" in obj else "labels"
    if key == "entities" and obj.get("label"):
        fail("has both `label` and `entities`: which are the spans?", None)
    labels = obj.get(key, [])
    if not isinstance(labels, list):
        fail(f"`{key}` is not a list", None)
    spans = [parse_span(item, i, fail) for i, item in enumerate(labels)]
    entities = file_entities(spans, obj.get("relations"), fail)
    return [RawSpan(s.start, s.end, s.label, entity_id=f"{doc_id}|{e}" if e is not None else None)
            for s, e in zip(spans, entities)]


def load_doccano_jsonl(path: str | Path, *, lang: str | None = None, name: str | None = None,
                       languages: tuple[str, ...] | None = None) -> Corpus:
    """Load a doccano export; `lang` overrides the metadata; `languages` keeps only those."""
    path = Path(path)
    if lang is not None and lang not in LANGUAGES:
        raise CorpusError(str(path), f"unknown language {lang!r} (known: {', '.join(LANGUAGES)})")
    with problems.loading_file():
        documents = []
        for number, obj in read_jsonl(path):
            doc_id = _doc_id(obj, number)
            with problems.checking_document():
                doc_lang = lang or _document_language(path, number, doc_id, obj)
                if languages is not None and doc_lang not in languages:
                    continue
                raw = _raw_spans(path, number, doc_id, obj)
                meta = {k: v for k, v in obj.items() if k in ("id", "pair", "lang") and v is not None}
                documents.append(build_document(str(path), doc_id, obj.get("text"), doc_lang, raw, meta=meta))
        try:
            return Corpus(name or path.stem, str(path), tuple(documents))
        except ValueError as exc:
            raise CorpusError(str(path), str(exc)) from None
