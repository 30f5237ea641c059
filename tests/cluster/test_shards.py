"""How a run's documents are cut into shards (workbench.cluster.shards): no Ray needed."""

from __future__ import annotations

import pytest

from tests.helpers.corpus import document_with_mentions
from workbench.cluster.shards import document_groups, plan_shards
from workbench.data_model import Corpus
from workbench.loaders import load_corpus


def _corpus() -> Corpus:
    docs = [
        document_with_mentions("c", "d1", "Anna Berg met Olof.", [("Anna Berg", "PERSON"), ("Olof", "PERSON")]),
        document_with_mentions("c", "d2", "Karin saw Lund.", [("Karin", "PERSON"), ("Lund", "LOC")]),
        document_with_mentions("c", "d3", "Later anna  berg left.", [("anna  berg", "PERSON")]),
        document_with_mentions("c", "d4", "Nobody here: Pia.", [("Pia", "PERSON")]),
    ]
    return Corpus("c", "test", tuple(docs))


def test_corpus_scope_keeps_documents_that_share_an_entity_together():
    corpus = _corpus()
    assert document_groups(corpus, "off") == [(0,), (1,), (2,), (3,)]
    assert document_groups(corpus, "document") == [(0,), (1,), (2,), (3,)]
    # d1 and d3 both mention Anna Berg (same label, same text after case and space folding).
    assert document_groups(corpus, "corpus") == [(0, 2), (1,), (3,)]
    for shards in (1, 2, 3, 4):
        for shard in plan_shards(corpus, shards, "corpus"):
            assert (0 in shard.documents) == (2 in shard.documents)


@pytest.mark.parametrize("shards", [1, 3, 4, 10, 50])
def test_shards_cover_every_document_once_in_corpus_order(shards):
    corpus = load_corpus("pgv-pii-en")
    cut = plan_shards(corpus, shards, "off")
    assert len(cut) == min(shards, len(corpus.documents))
    assert [n for s in cut for n in s.documents] == list(range(len(corpus.documents)))
    assert [(s.number, s.of) for s in cut] == [(k, len(cut)) for k in range(1, len(cut) + 1)]
    assert plan_shards(corpus, shards, "off") == cut  # a resumed job cuts the same shards


def test_shards_have_about_equal_span_counts():
    corpus = load_corpus("pgv-pii-sv")
    sizes = [sum(len(corpus.documents[n].masked_spans) for n in s.documents) for s in plan_shards(corpus, 3, "off")]
    largest_document = max(len(d.masked_spans) for d in corpus.documents)
    assert max(sizes) - min(sizes) <= 2 * largest_document, sizes


def test_a_shard_names_its_documents():
    corpus = _corpus()
    first = plan_shards(corpus, 2, "off")[0]
    assert first.describe(corpus) == "shard 1/2 (2 document(s): d1 … d2)"
