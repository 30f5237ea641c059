"""Hand-made documents for tests: a text and its mentions, found in order."""

from __future__ import annotations


def document_with_mentions(corpus_name: str, doc_id: str, text: str, mentions, lang: str = "en"):
    """A validated Document whose spans are the (mention, label) pairs, each found in `text`
    after the previous one (so a name mentioned twice is listed twice)."""
    from workbench.loaders.validate import RawSpan, build_document
    raw, cursor = [], 0
    for mention, label in mentions:
        start = text.index(mention, cursor)
        raw.append(RawSpan(start, start + len(mention), label))
        cursor = start + len(mention)
    return build_document(corpus_name, doc_id, text, lang, raw)
