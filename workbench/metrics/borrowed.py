"""Borrowed identities (issue 27): pseudonyms that are, or name, another entity's real value.

A pseudonym borrows an identity when it equals the original of another entity, or shares a
name word with it: "Eva Nowak" for "Jan Kowalski" where Eva Nowak is another person of the
corpus, or "Warsaw" for "Oslo" where Warsaw is a place the text names elsewhere. Readers take
it for that real entity, and it can point at a real individual. Paper 003's overlap measures
compare a pseudonym with its own original only; the leak guard's corpus scope
(`--leak-guard corpus`) refuses whole values, not name words.

    borrowed_value_document  share of spans whose pseudonym equals (case and white space
                             ignored: overlap_rules.value_key) the original of another entity
                             of the same document
    borrowed_document        ... equals it or shares a name word with it
    borrowed_value_corpus    ... equals the original of another entity anywhere in the corpus
    borrowed_corpus          ... equals it or shares a name word with it

A name word is a word of at least two letters written with a capital first, which is no
function word of the span's language (workbench.text.stopwords), no title or name
particle (overlap_rules.is_title: "Mr", "de") and no month or weekday name (English writes
them with a capital; "4 June 1997" names no one that "6 June 1995" names, and a date's whole
value still counts); compared without case, in NFC (workbench.text.compare: a word written
with combining marks is the word written precomposed). What the pseudonym
shares with its own entity's originals (any mention of it in the document) never counts:
that is a leak, which the overlap family measures, not a borrowing. Entities are the frame's
entity_id (a document's mentions of one entity); the originals are those of the run's spans
(spans kept as they are, mask=False, are not in the frame and lend nothing). Rates are over
all spans of a run, FAILED and suppressed (empty) pseudonyms borrowing nothing; range [0, 1],
lower is better.
"""

from __future__ import annotations

from collections import defaultdict

import pandas as pd

from workbench.metrics.base import LOWER, MetricInfo, per_run
from workbench.text.compare import words
from workbench.text.dates import MONTH_NAMES, WEEKDAY_NAMES
from workbench.text.overlap_rules import is_title, value_key
from workbench.text.stopwords import STOPWORDS

FAMILY = "borrowed"
_SOURCE = "beyond 003 (issue 27)"
METRICS = (
    MetricInfo("borrowed_value_document", "borrowed value (doc)", FAMILY, 0, 1, LOWER, _SOURCE,
               "share of spans whose pseudonym equals the original of another entity of its document"),
    MetricInfo("borrowed_document", "borrowed (doc)", FAMILY, 0, 1, LOWER, _SOURCE,
               "share of spans whose pseudonym equals, or shares a name word with, the original of another "
               "entity of its document"),
    MetricInfo("borrowed_value_corpus", "borrowed value (corpus)", FAMILY, 0, 1, LOWER, _SOURCE,
               "share of spans whose pseudonym equals the original of another entity of the corpus"),
    MetricInfo("borrowed_corpus", "borrowed (corpus)", FAMILY, 0, 1, LOWER, _SOURCE,
               "share of spans whose pseudonym equals, or shares a name word with, the original of another "
               "entity of the corpus"),
)

# Full month and weekday names of either language (abbreviations stay name words: "Jan" is a name).
CALENDAR_WORDS = frozenset(w for names in (*MONTH_NAMES.values(), *WEEKDAY_NAMES.values()) for w in names)


def name_words(text: str, lang: str) -> set[str]:
    """The name words of `text` (see the module docstring), lower-cased."""
    stops = STOPWORDS.get(lang, frozenset())
    return {w.casefold() for w in words(text, letters=True)
            if len(w) >= 2 and w[0].isupper() and w.casefold() not in stops and w.casefold() not in CALENDAR_WORDS
            and not is_title(w, lang)}


class _Owners:
    """Who in one run's corpus owns each original value and name word: {key: {(doc, entity)}}."""

    def __init__(self, rows) -> None:
        self.values: dict[str, set] = defaultdict(set)
        self.words: dict[str, set] = defaultdict(set)
        self.own_values: dict[tuple, set] = defaultdict(set)
        self.own_words: dict[tuple, set] = defaultdict(set)
        for entity, original, lang in rows:
            key, words = value_key(original), name_words(original, lang)
            self.values[key].add(entity)
            self.own_values[entity].add(key)
            for w in words:
                self.words[w].add(entity)
            self.own_words[entity] |= words

    def borrowed(self, entity: tuple, pseudonym: str, lang: str) -> tuple[bool, bool, bool, bool]:
        """(value in document, value or word in document, value in corpus, value or word in corpus)."""
        key = value_key(pseudonym)
        value_owners = set() if key in self.own_values[entity] else self.values.get(key, set()) - {entity}
        word_owners = set()
        for w in name_words(pseudonym, lang) - self.own_words[entity]:
            word_owners |= self.words.get(w, set())
        word_owners.discard(entity)
        doc = entity[0]
        value_doc = any(o[0] == doc for o in value_owners)
        word_doc = any(o[0] == doc for o in word_owners)
        return value_doc, value_doc or word_doc, bool(value_owners), bool(value_owners or word_owners)


def _entity(doc_id, entity_id, span_index) -> tuple:
    # A span without an entity id is an entity of its own.
    return (doc_id, entity_id if isinstance(entity_id, str) and entity_id else f"span {span_index}")


def span_values(frame: pd.DataFrame, context=None) -> pd.DataFrame:
    """Per row (index: the frame's): 1.0 where the pseudonym borrows, for each metric, else 0.0."""
    found: dict = {}
    for _, run in frame.groupby("run_id", sort=False):
        entities = [_entity(d, e, i) for d, e, i in zip(run["doc_id"], run["entity_id"], run["span_index"])]
        owners = _Owners(zip(entities, run["original"], run["lang"]))
        for index, entity, pseudonym, failed, lang in zip(run.index, entities, run["pseudonym"], run["failed"],
                                                          run["lang"]):
            if not failed and str(pseudonym).strip():  # FAILED and suppressed spans borrow nothing
                found[index] = owners.borrowed(entity, str(pseudonym), lang)
    nothing = (False,) * len(METRICS)
    rows = [found.get(index, nothing) for index in frame.index]
    return pd.DataFrame(rows, index=frame.index, columns=[m.name for m in METRICS], dtype=float)


def compute(frame: pd.DataFrame, context=None) -> pd.DataFrame:
    values = span_values(frame)
    return pd.DataFrame({name: per_run(frame, values[name]) for name in values.columns})
