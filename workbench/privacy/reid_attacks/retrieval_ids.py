"""`retrieval-ids`: the BM25 attacker over tokens that keep identifiers whole (issue 39).

The same BM25 as `retrieval` (bm25s, Lucene's variant, k1 = 1.5, b = 0.75, its IDF) over
workbench.text.id_tokens: an application number `36110/97`, a date `12 March 1997` (read as
1997-03-12, so it also meets 12.03.1997 or 1997-03-12 in the background) and a number are one
token each, and BM25's IDF weighs them as the rare tokens they are; words are lower-cased as
before, and the stop words of the documents' language (bm25s's lists, as `retrieval`) are left out.

A new attacker beside `retrieval`, not a change to it: changing retrieval's tokens would change
what every stored retrieval attack means under the same attack key (tests/project/test_pinned_ids.py pins
one). The attack key names the tokeniser (`tokens: identifiers-1`); a change to the rule bumps it.
"""

from __future__ import annotations

from collections.abc import Sequence

from workbench.privacy.reid_attacks.retrieval import RetrievalAttacker, RetrievalConfig, _bm25s
from workbench.text.compare import nfc
from workbench.text.id_tokens import identifier_tokens

TOKENS = "identifiers-1"  # the tokeniser's version, in the attack key


class IdRetrievalAttacker(RetrievalAttacker):
    """BM25 over identifier-aware tokens; `scores(texts)` ranks every individual for each text."""

    name = "retrieval-ids"
    Config = RetrievalConfig
    batch_documents = 16  # not retrieval's 64: reid's default, as before (transactions only, not scores)

    def describe(self) -> dict:
        return {**self.config.describe(), "tokens": TOKENS}

    def _tokens(self, texts: Sequence[str]) -> list[list[str]]:
        stopwords = frozenset(_stopword_list(self.config.stopwords))
        return [[t for t in identifier_tokens(nfc(text)) if t not in stopwords] for text in texts]


def _stopword_list(language: str) -> Sequence[str]:
    if language == "none":
        return ()
    _bm25s()  # a clear MissingExtra where bm25s is not installed
    from bm25s.tokenization import _infer_stopwords  # bm25s's own list for the language, as `retrieval` uses
    return _infer_stopwords(language)
