"""A tiny English and Swedish corpus for the surrogate tests, and a maker over the shipped table.

The documents hold what the surrogates must handle: names mentioned more than once (alone
and in full, with titles and a genitive), dates in every format the generator writes back
(numeric, written out, abbreviated, with weekdays, month-year, year-only), codes and
quantities, an initialism.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers.corpus import document_with_mentions
from workbench.adapters.surrogate import SurrogateMaker, load_table
from workbench.data_model import Corpus

DOCS = (
    ("en-a", "en",
     "Ms Anna Berg (application no. 43185/98) was born on 3 August 2003 in Oslo. On 2003-08-10 she met "
     "Mr John Smith in Oslo, and by 17/08/2003 Anna Berg had paid GBP 1,000 for three rooms. The hearing of "
     "August 24th, 2003 was moved to Saturday 30 August 2003. Berg's case 007-12 was closed in September "
     "2003 and archived in 2004. The DPP wrote to the Court of Appeal on 5.9.2003.",
     [("Anna Berg", "PERSON"), ("43185/98", "CODE"), ("3 August 2003", "DATETIME"), ("Oslo", "LOC"),
      ("2003-08-10", "DATETIME"), ("John Smith", "PERSON"), ("Oslo", "LOC"), ("17/08/2003", "DATETIME"),
      ("Anna Berg", "PERSON"), ("GBP 1,000", "QUANTITY"), ("three rooms", "QUANTITY"),
      ("August 24th, 2003", "DATETIME"), ("Saturday 30 August 2003", "DATETIME"), ("Berg's", "PERSON"),
      ("007-12", "CODE"), ("September 2003", "DATETIME"), ("2004", "DATETIME"), ("DPP", "ORG"),
      ("Court of Appeal", "ORG"), ("5.9.2003", "DATETIME")]),
    ("en-b", "en",
     "Anna Berg lives in Paris. She was born on 12 March 1970 and moved on 3 Aug. 1999.",
     [("Anna Berg", "PERSON"), ("Paris", "LOC"), ("12 March 1970", "DATETIME"), ("3 Aug. 1999", "DATETIME")]),
    ("sv-a", "sv",
     "Karin Ström föddes den 3 augusti 2003 i Göteborg. Den 10 aug. 2003 flyttade Karin Ström till Malmö, "
     "och den 3:e september 2003 började Ström som läkare på Sahlgrenska. Onsdagen den 5 november 2003 "
     "skrev hon till Lars Nilsson. Ärendet 4711-03 avslutades i juli 2004, år 2005.",
     [("Karin Ström", "personal_name"), ("den 3 augusti 2003", "date"), ("Göteborg", "geographic"),
      ("10 aug. 2003", "date"), ("Karin Ström", "personal_name"), ("Malmö", "geographic"),
      ("den 3:e september 2003", "date"), ("Ström", "personal_name"), ("läkare", "other"),
      ("Sahlgrenska", "institution"), ("Onsdagen den 5 november 2003", "date"), ("Lars Nilsson", "personal_name"),
      ("4711-03", "CODE"), ("juli 2004", "date"), ("år 2005", "date")]),
)


def bilingual_corpus(docs=DOCS, name: str = "surrogate-tiny") -> Corpus:
    documents = []
    for doc_id, lang, text, mentions in docs:
        documents.append(document_with_mentions(name, doc_id, text, mentions, lang))
    return Corpus(name, "tests/surrogates/surrogate_helpers.py", tuple(documents))


def write_doccano(corpus: Corpus, path: Path) -> Path:
    """The corpus as a doccano JSONL file, for the CLI."""
    with path.open("w", encoding="utf-8") as f:
        for d in corpus.documents:
            f.write(json.dumps({"doc_id": d.doc_id, "text": d.text, "lang": d.lang,
                                "label": [[s.start, s.end, s.label] for s in d.spans]}, ensure_ascii=False) + "\n")
    return path


_TABLE = None


def maker(seed: int = 13, **options) -> SurrogateMaker:
    """A fresh maker over the shipped table (the table is read once per session)."""
    global _TABLE
    if _TABLE is None:
        _TABLE = load_table()
    return SurrogateMaker(_TABLE, seed, **options)


def surrogates_of(corpus: Corpus, m: SurrogateMaker, order=None) -> dict[tuple[str, int], str]:
    """(doc_id, span index) -> the surrogate of every original-level span, asked in `order`
    (default: reading order)."""
    items = [(d, i) for d in corpus.documents for i, s in enumerate(d.spans) if m.level(s.label) == "original"]
    out = {}
    for d, i in (order(items) if order else items):
        span = d.spans[i]
        out[(d.doc_id, i)] = m.from_original(span.text, span.label, d.lang, d.doc_id).text
    return out
