"""The TAB-derived pair of files shipped in corpora/tab: {doc_id: text} and
{doc_id: [[start, end, ENTITY_TYPE], …]}.

This form has neither identifier_type nor entity_id: every span is one to replace, and
entities are grouped by the rule in workbench.loaders.entity_grouping. Its 21 nested mentions
are folded into their outer mention (see build_document's drop_nested).
"""

from __future__ import annotations

from pathlib import Path

from workbench.data_model import Corpus
from workbench.infra.errors import CorpusError
from workbench.loaders import problems
from workbench.loaders.files import read_json
from workbench.loaders.validate import RawSpan, build_document


def load_tab_pair(texts_path: str | Path, spans_path: str | Path, *, name: str = "tab-test",
                  lang: str = "en") -> Corpus:
    with problems.loading_file():
        return _load(texts_path, spans_path, name, lang)


def _load(texts_path, spans_path, name: str, lang: str) -> Corpus:
    texts = read_json(Path(texts_path))
    spans = read_json(Path(spans_path))
    for path, obj in ((texts_path, texts), (spans_path, spans)):
        if not isinstance(obj, dict):
            raise CorpusError(str(path), f"expected a JSON object {{doc_id: …}}, found a {type(obj).__name__}")
    missing = sorted(set(spans) - set(texts))
    if missing:
        raise CorpusError(str(spans_path), f"spans for documents with no text: {missing[:5]}", doc_id=missing[0])
    documents = []
    for doc_id in texts:
        with problems.checking_document():  # `workbench validate` reads on past a bad document
            raw = []
            listed = spans.get(doc_id, [])
            if not isinstance(listed, list):
                raise CorpusError(str(spans_path), f"the spans are a JSON {type(listed).__name__} ({listed!r:.40}), "
                                  "not a list of [start, end, TYPE]", doc_id=doc_id)
            for i, item in enumerate(listed):
                if not (isinstance(item, list) and len(item) == 3):
                    raise CorpusError(str(spans_path), "span is not [start, end, TYPE]", doc_id=doc_id,
                                      span=f"#{i} {item!r}")
                raw.append(RawSpan(item[0], item[1], str(item[2])))
            documents.append(build_document(str(spans_path), doc_id, texts[doc_id], lang, raw, drop_nested=True))
    return Corpus(name, f"{texts_path} + {spans_path}", tuple(documents))
