"""Helpers shared by the MTC test modules (fixtures are in conftest.py)."""

from __future__ import annotations


def tiny_recipe(base, **train):
    from workbench.adapters.mtc.build import BuildRecipe, VocabularySettings
    from workbench.adapters.mtc.train_phrases import TrainSettings
    return BuildRecipe(kind="ss-mtc", base_model=str(base),
                       vocabulary=VocabularySettings(min_count=1, sentences_per_phrase=5, test_fraction=0.0),
                       train=TrainSettings(**({"epochs": 3} | train)), train_fraction=1.0)


def make_corpus():
    """Three short English documents whose spans repeat (multi-word names, courts, dates)."""
    from tests.helpers.corpus import document_with_mentions
    from workbench.data_model import Corpus

    def doc(doc_id, text, mentions):
        return document_with_mentions("mtc-tests", doc_id, text, mentions)

    return Corpus("mtc-tiny", "tests/mtc/conftest.py", (
        doc("d1", "The applicant, Mr Jan Kowalski, lives in New York City. He appealed to the Supreme Court "
                  "on 3 May 1999. The Supreme Court dismissed the appeal. Mr Jan Kowalski then moved to Oslo.",
            [("Jan Kowalski", "PERSON"), ("New York City", "LOC"), ("Supreme Court", "ORG"), ("3 May 1999", "DATETIME"),
             ("Supreme Court", "ORG"), ("Jan Kowalski", "PERSON"), ("Oslo", "LOC")]),
        doc("d2", "Ms Eva Nowak was represented by a lawyer practising in New York City. The Regional Court "
                  "heard her on 12 June 2001. Ms Eva Nowak lost before the Regional Court.",
            [("Eva Nowak", "PERSON"), ("New York City", "LOC"), ("Regional Court", "ORG"), ("12 June 2001", "DATETIME"),
             ("Eva Nowak", "PERSON"), ("Regional Court", "ORG")]),
        doc("d3", "The Government were represented by their Agent, Mr J. Wołąsiewicz, of the Ministry of Foreign "
                  "Affairs. The Ministry of Foreign Affairs replied in writing.",
            [("J. Wołąsiewicz", "PERSON"), ("Ministry of Foreign Affairs", "ORG"),
             ("Ministry of Foreign Affairs", "ORG")]),
    ))
