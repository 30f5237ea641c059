"""Spans keep TAB's identifier_type for INTACT (004 §3.1 labels DIRECT spans), and the corpus hash,
hence every run id stored before, stays as it was."""

from __future__ import annotations

import json

import pytest

from workbench.loaders.tab_release import load_tab_release
from workbench.text.slots import SlotBuilder

# Content hashes of the shipped corpora computed before spans had an identifier_type (commit
# 80f542c): a changed hash would orphan every stored run of them.
BEFORE = {
    "pgv-pii-en": "c16058454326935c62b722b1eb1054570c50bb2f2973a268e84a0d27d6b247f9",
    "tab-test": "4e7f4e49b7b940e1d1936e5ffefc4f008707f9c10fa450e9c10e06b677e3b153",
}


@pytest.mark.parametrize("name", sorted(BEFORE))
def test_shipped_corpus_hashes_are_unchanged(name):
    from workbench.loaders import shipped_corpus
    assert shipped_corpus(name).content_hash == BEFORE[name]


def _release(tmp_path, person_type: str):
    text = "The applicant, Mr Jan Nowak, was born in 1950 in Gdansk."
    mentions = []
    for sub, kind, ident in (("Jan Nowak", "PERSON", person_type), ("1950", "DATETIME", "QUASI"),
                             ("Gdansk", "LOC", "QUASI")):
        start = text.index(sub)
        mentions.append({"entity_type": kind, "start_offset": start, "end_offset": start + len(sub),
                         "span_text": sub, "identifier_type": ident, "entity_id": sub})
    path = tmp_path / f"echr_{person_type}.json"
    path.write_text(json.dumps([{"doc_id": "001-1", "text": text,
                                 "annotations": {"a1": {"entity_mentions": mentions}}}]), encoding="utf-8")
    return load_tab_release(path, name="release")


def test_the_release_loader_keeps_identifier_types_and_slots_carry_the_targets(tmp_path):
    corpus = _release(tmp_path, "DIRECT")
    doc = corpus.documents[0]
    assert [s.identifier_type for s in doc.spans] == ["DIRECT", "QUASI", "QUASI"]
    builder = SlotBuilder(doc)
    assert [builder.slot(i).identifier_type for i in range(3)] == ["DIRECT", "QUASI", "QUASI"]


def test_identifier_types_are_not_part_of_the_content_hash(tmp_path):
    direct, quasi = _release(tmp_path, "DIRECT"), _release(tmp_path, "QUASI")
    assert direct.documents[0].spans[0].identifier_type != quasi.documents[0].spans[0].identifier_type
    assert direct.content_hash == quasi.content_hash
    # …and equal to the hash of the same spans with no identifier type at all (a format without them).
    from dataclasses import replace

    from workbench.data_model import Corpus
    bare = Corpus("release", "x", tuple(replace(d, spans=tuple(replace(s, identifier_type="") for s in d.spans))
                                        for d in direct.documents))
    assert bare.content_hash == direct.content_hash
