"""Hand-made documents for tests: a text and its mentions, found in order."""

from __future__ import annotations


def document_with_mentions(corpus_name: str, doc_id: str, text: str, mentions, lang: str = "en", **build):
    """A validated Document whose spans are the mentions, each found in `text` after the previous
    one (so a name mentioned twice is listed twice). A mention is (text, label) or
    (text, label, fields), fields being more RawSpan fields such as entity_id or identifier_type;
    `build` goes to build_document (e.g. drop_nested=True)."""
    from workbench.loaders.validate import RawSpan, build_document
    raw, cursor = [], 0
    for mention, label, *fields in mentions:
        start = text.index(mention, cursor)
        raw.append(RawSpan(start, start + len(mention), label, **(fields[0] if fields else {})))
        cursor = start + len(mention)
    return build_document(corpus_name, doc_id, text, lang, raw, **build)
