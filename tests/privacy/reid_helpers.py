"""A tiny corpus about five individuals, its background knowledge, and runs written straight into a store.

Every document is the same court-report template with the individual's own details in the
annotated spans, so the spans are the only thing that ties a document to its individual's
background text. A run whose pseudonyms are the original span texts (an `original`-like run)
leaves every tie in place; suppression removes them all, and every document becomes the same
text. The background holds one more individual than the corpus (TAE's "superset").
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

from tests.helpers.corpus import document_with_mentions
from workbench.data_model import Corpus, Document, Span
from workbench.store import RunRecord, RunStore, StoredPrediction
from workbench.store.signature import RunSignature

TEMPLATE = ("The applicant, {name}, was born in {year} and lives in {city}. On {date} {name} was arrested by officers "
            "of the {org} and taken to a police station in {city}. The applicant complained to the {org} that the "
            "arrest had been unlawful.")
PEOPLE = {
    "doc-a": dict(name="Halvard Quist", year="1961", city="Trondheim", date="4 March 1999",
                  org="Fjordvakt Directorate"),
    "doc-b": dict(name="Mirela Ostrowska", year="1974", city="Bydgoszcz", date="12 June 2001",
                  org="Wisła Border Guard"),
    "doc-c": dict(name="Teodor Vancea", year="1958", city="Timișoara", date="30 October 1996",
                  org="Banat Gendarmerie"),
    "doc-d": dict(name="Aylin Karaduman", year="1983", city="Eskişehir", date="7 January 2005",
                  org="Porsuk Security Office"),
    "doc-e": dict(name="Rui Albergaria", year="1969", city="Guimarães", date="19 August 2003",
                  org="Minho Customs Brigade"),
}
LABELS = {"name": "PERSON", "year": "DATETIME", "city": "LOC", "date": "DATETIME", "org": "ORG"}
# Public texts: each mentions its individual's details in other sentences than the report's.
BACKGROUND_TEMPLATE = ("CASE OF {name} v. THE STATE. The Court held that there had been a violation of Article 5 in "
                       "respect of {name}, born in {year}, resident in {city}. The {org} had detained the applicant "
                       "on {date}. The Court awards {name} just satisfaction.")
EXTRA_INDIVIDUAL = ("doc-z", dict(name="Oskar Lindqvist", year="1990", city="Luleå", date="2 May 2010",
                                  org="Norrbotten Harbour Police"))


def corpus() -> Corpus:
    docs = []
    for doc_id, person in PEOPLE.items():
        text = TEMPLATE.format(**person)
        fields = ("name", "year", "city", "date", "name", "org", "city", "org")
        docs.append(document_with_mentions("reid-tiny", doc_id, text, [(person[f], LABELS[f]) for f in fields]))
    return Corpus("reid-tiny", "tests/privacy/reid_helpers.py", tuple(docs))


def background(path: Path, *, people=None) -> Path:
    people = dict(PEOPLE if people is None else people)
    people.setdefault(*EXTRA_INDIVIDUAL)
    path.write_text(json.dumps({d: BACKGROUND_TEMPLATE.format(**p) for d, p in people.items()}, ensure_ascii=False),
                    encoding="utf-8")
    return path


def write_run(store: RunStore, corpus: Corpus, name: str, replace: Callable[[Span], str], *,
              complete: bool = True) -> str:
    """A run whose pseudonym for each span is replace(span), written straight into the store."""
    signature = RunSignature(corpus_name=corpus.name, corpus_hash=corpus.content_hash, generator=name, model="-",
                             mode="external", upos_filter=False, tagger="", versions={}, source="imported",
                             file_sha256=name)
    store.save_corpus(corpus)
    record = RunRecord(signature.run_id, signature, corpus.content_hash, corpus.name, name, "-", "external", False,
                       {}, {}, {}, "running", corpus.n_slots, time.time(), None, "imported")
    store.create_run(record)
    predictions = [StoredPrediction(d.doc_id, i, replace(s), (replace(s),), None, None, False, "test", 0.0, 0)
                   for d in corpus.documents for i, s in enumerate(d.spans) if s.mask]
    store.add_predictions(signature.run_id, predictions if complete else predictions[:-1])
    if complete:
        store.finish_run(signature.run_id)
    return signature.run_id


def article_halves(corpus: Corpus) -> tuple[Corpus, dict[str, str]]:
    """A background a user could bring for a corpus of articles (PGV-PII SV): (the first half of each
    article, cut after a sentence, with its spans, as the corpus to protect; {doc_id: the rest of
    the article}, that individual's public text)."""
    docs, rest = [], {}
    for d in corpus.documents:
        cut = d.text.find(". ", len(d.text) // 2) + 2
        docs.append(Document(d.doc_id, d.text[:cut], d.lang, tuple(s for s in d.spans if s.end <= cut), d.meta))
        rest[d.doc_id] = d.text[cut:]
    return Corpus(f"{corpus.name}-halves", corpus.source, tuple(docs)), rest


# The method-aware tests' corpus (test_reid_method_aware.py, test_reid_method_aware_table.py):
# three individuals told apart by *which kinds* of entity their texts name: once every span is
# its label, the marks are all that is left, and only an index that holds marks can read them.
CROWD = {
    "doc-p": ("Witnesses: Anna Berg, Carl Holm, Dora Lind.", [("Anna Berg", "PERSON"), ("Carl Holm", "PERSON"),
                                                              ("Dora Lind", "PERSON")],
              "Anna Berg, Carl Holm and Dora Lind testified."),
    "doc-o": ("Bodies: Fjord Authority, Harbour Board.", [("Fjord Authority", "ORG"), ("Harbour Board", "ORG")],
              "The Fjord Authority overruled the Harbour Board."),
    "doc-l": ("Route: Oslo, Bergen, Tromsø.", [("Oslo", "LOC"), ("Bergen", "LOC"), ("Tromsø", "LOC")],
              "From Oslo by ship to Bergen, then Tromsø."),
}


def gazetteer(entries: dict[str, str]):
    """A detector (method_aware.Detector) that finds these strings, typed as given: spans without a model."""
    def detect(lang):
        return "gazetteer-test", find

    def find(texts):
        found = []
        for text in texts:
            hits = []
            for mention, label in entries.items():
                start = text.find(mention)
                while start >= 0:
                    hits.append((start, start + len(mention), label))
                    start = text.find(mention, start + len(mention))
            found.append(sorted(hits))
        return found
    return detect


def crowd(tmp_path: Path) -> tuple[Corpus, Path, dict[str, str]]:
    """CROWD as a corpus, its background file, and the gazetteer's entries (mention -> label)."""
    docs = tuple(document_with_mentions("crowd", d, text, mentions) for d, (text, mentions, _) in CROWD.items())
    path = tmp_path / "crowd-bk.json"
    path.write_text(json.dumps({d: bk for d, (_, _, bk) in CROWD.items()}), encoding="utf-8")
    entries = {m: label for _, mentions, _ in CROWD.values() for m, label in mentions}
    return Corpus("crowd", "tests/privacy/reid_attacks/test_reid_method_aware.py", docs), path, entries
