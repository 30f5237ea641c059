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


def make_tiny_corpus():
    """Two short English documents and one Swedish, with entities mentioned twice."""
    from workbench.data_model import Corpus

    def doc(doc_id, lang, text, mentions):
        return document_with_mentions("tiny", doc_id, text, mentions, lang)

    return Corpus("tiny", "tests/conftest.py", (
        doc("en-1", "en",
            "Anna Berg was born in Oslo in 1975. She moved to Paris in 1999. Anna Berg works for Nordbank. "
            "Her brother Olle lives in Oslo. He is a teacher.",
            [("Anna Berg", "PERSON"), ("Oslo", "LOC"), ("1975", "DATETIME"), ("Paris", "LOC"), ("1999", "DATETIME"),
             ("Anna Berg", "PERSON"), ("Nordbank", "ORG"), ("Olle", "PERSON"), ("Oslo", "LOC"), ("teacher", "DEM")]),
        doc("en-2", "en",
            "The applicant, Mr Jan Kowalski, was represented by Ms Eva Nowak, a lawyer practising in Warsaw. "
            "The Government were represented by their Agent, Mr J. Wołąsiewicz.",
            [("Jan Kowalski", "PERSON"), ("Eva Nowak", "PERSON"), ("Warsaw", "LOC"), ("J. Wołąsiewicz", "PERSON")]),
        doc("sv-1", "sv",
            "Karin Ström föddes i Göteborg år 1980. Hon arbetar som läkare på Sahlgrenska. Karin Ström bor nu i Malmö.",
            [("Karin Ström", "personal_name"), ("Göteborg", "geographic"), ("1980", "date"), ("läkare", "other"),
             ("Sahlgrenska", "institution"), ("Karin Ström", "personal_name"), ("Malmö", "geographic")]),
    ))
