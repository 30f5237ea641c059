"""Entities a doccano file states (issue 15 item 5): an entity id in the span and doccano's
coreference relations, the grouping rule as fallback, the counts per source, bad input named,
`--consistent` and the consistency metric on such a file, and the doccano export round trip."""

from __future__ import annotations

import json
import math

import pytest

from workbench.infra.errors import CorpusError
from workbench.loaders import load_corpus
from workbench.loaders.entity_grouping import EntityCounts, entity_counts, inferred_entity_id

TEXT = "Ahmed Karim met Lina in Oslo. Later Ahmed flew home to Oslo."
KARIM, LINA, OSLO1, AHMED, OSLO2 = (0, 11), (16, 20), (24, 28), (36, 41), (55, 59)


def write(tmp_path, records, name="mine.jsonl"):
    path = tmp_path / name
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in records) + "\n", encoding="utf-8")
    return path


def line(spans=None, *, entities=None, relations=None, doc_id="d1", text=TEXT):
    record = {"doc_id": doc_id, "text": text, "lang": "en"}
    if spans is not None:
        record["label"] = spans
    if entities is not None:
        record["entities"] = entities
    if relations is not None:
        record["relations"] = relations
    return record


def obj(span_id, offsets, label, **extra):
    return {"id": span_id, "start_offset": offsets[0], "end_offset": offsets[1], "label": label, **extra}


def coref(rel_id, a, b, kind="coref"):
    return {"id": rel_id, "from_id": a, "to_id": b, "type": kind}


# The three forms, each saying "Ahmed Karim" and "Ahmed" are one person and nothing about Lina or Oslo.
FORMS = {
    "4th element": line([[*KARIM, "PERSON", "ahmed"], [*LINA, "PERSON"], [*OSLO1, "LOC", None],
                         [*AHMED, "PERSON", "ahmed"], [*OSLO2, "LOC"]]),
    "entity_id key": line([obj(None, KARIM, "PERSON", entity_id=7), obj(None, LINA, "PERSON"),
                           obj(None, OSLO1, "LOC"), obj(None, AHMED, "PERSON", entity_id="7"),
                           obj(None, OSLO2, "LOC")]),
    "doccano relations": line(entities=[obj(11, KARIM, "PERSON"), obj(12, LINA, "PERSON"), obj(13, OSLO1, "LOC"),
                                        obj(14, AHMED, "PERSON"), obj(15, OSLO2, "LOC")],
                              relations=[coref(1, 14, 11), coref(2, 12, 13, "works_in")]),
}


@pytest.mark.parametrize("form", FORMS)
def test_each_form_makes_one_entity_of_the_linked_mentions(tmp_path, form):
    doc = load_corpus(str(write(tmp_path, [FORMS[form]]))).documents[0]
    ids = {s.text: s.entity_id for s in doc.spans}
    assert len({s.entity_id for s in doc.spans}) == 3  # Ahmed; Lina; Oslo (by the rule)
    assert ids["Ahmed Karim"] == ids["Ahmed"] != ids["Lina"]
    assert ids["Ahmed"] == {"4th element": "d1|ahmed", "entity_id key": "d1|7",
                            "doccano relations": "d1|linked:11"}[form]
    assert ids["Lina"] == inferred_entity_id("d1", "PERSON", "Lina")  # a works_in relation joins nothing
    assert entity_counts(load_corpus(str(write(tmp_path, [FORMS[form]])))) == EntityCounts(1, 2)


def test_without_ids_the_rule_keeps_them_apart(tmp_path):
    doc = load_corpus(str(write(tmp_path, [line([[*KARIM, "PERSON"], [*AHMED, "PERSON"], [*OSLO1, "LOC"],
                                                 [*OSLO2, "LOC"]])]))).documents[0]
    assert len({s.entity_id for s in doc.spans}) == 3
    assert str(entity_counts(load_corpus(str(tmp_path / "mine.jsonl")))) == \
        "0 entities from the file's ids, 3 by the grouping rule"


def test_an_unlinked_mention_joins_the_one_file_entity_that_reads_like_it(tmp_path):
    """The rule fills in: a third "Ahmed Karim" with no id joins E1 (its look-alike has that id);
    where two of the file's entities read alike (father and son), it cannot choose and stays apart."""
    text = "Ahmed Karim met Lina. Ahmed left. Ahmed Karim and Lina stayed."
    spans = [[0, 11, "PERSON", "E1"], [16, 20, "PERSON"], [22, 27, "PERSON", "E1"], [34, 45, "PERSON"],
             [50, 54, "PERSON"]]
    doc = load_corpus(str(write(tmp_path, [line(spans, text=text)]))).documents[0]
    assert [s.entity_id for s in doc.spans] == ["d1|E1", "d1|PERSON|lina", "d1|E1", "d1|E1", "d1|PERSON|lina"]
    text2 = "Ahmed Karim met Ahmed Karim. Ahmed Karim left."
    doc = load_corpus(str(write(tmp_path, [line([[0, 11, "PERSON", "father"], [16, 27, "PERSON", "son"],
                                                 [29, 40, "PERSON"]], text=text2)]))).documents[0]
    assert [s.entity_id for s in doc.spans] == ["d1|father", "d1|son", "d1|PERSON|ahmed karim"]
    assert entity_counts(load_corpus(str(tmp_path / "mine.jsonl"))) == EntityCounts(2, 1)


def test_relations_are_transitive_and_take_a_stated_id(tmp_path):
    text = "Ahmed Karim, Mr Karim and Ahmed."
    entities = [obj(1, (0, 11), "PERSON"), obj(2, (13, 21), "PERSON", entity_id="AK"), obj(3, (26, 31), "PERSON")]
    doc = load_corpus(str(write(tmp_path, [line(entities=entities, relations=[coref(1, 1, 2, "Same-As"),
                                                                                coref(2, 3, 1, "COREFERENCE")],
                                                text=text)]))).documents[0]
    assert [s.entity_id for s in doc.spans] == ["d1|AK"] * 3


def rel_line(relations, entities=None):
    return line(entities=entities or [obj(1, KARIM, "PERSON"), obj(2, AHMED, "PERSON")], relations=relations)


# (case, record, fragments of the message besides the file name and "line 1", "document d1")
BAD = [
    ("relation names an unknown span id", rel_line([coref(9, 2, 5)]),
     ["relation #0 (id 9)", "to_id 5", "no span of this document has that id", "span ids: 1, 2"]),
    ("relation in a file without span ids", line([[*KARIM, "PERSON"], [*AHMED, "PERSON"]],
                                                 relations=[coref(1, 0, 1)]),
     ["relation #0", "from_id 0", "give each span its doccano `id`"]),
    ("entity id a list", line([[*KARIM, "PERSON", ["E1"]]]), ["span #0 [0, 11) PERSON", "entity id ['E1']",
                                                              "JSON list, not a string or an integer"]),
    ("entity id a number", line([obj(None, KARIM, "PERSON", entity_id=1.5)]),
     ["span #0 [0, 11) PERSON", "JSON number"]),
    ("entity id a boolean", line([[*KARIM, "PERSON", True]]), ["span #0 [0, 11) PERSON", "JSON boolean"]),
    ("entity id empty", line([[*KARIM, "PERSON", " "]]), ["span #0 [0, 11) PERSON", "empty string"]),
    ("one entity, two labels", line([[*KARIM, "PERSON", "E1"], [*OSLO1, "LOC", "E1"]]),
     ["span #1 [24, 28) LOC", "entity 'E1' labelled LOC", "span #0 [0, 11) PERSON", "one entity has one label"]),
    ("joined by relation, two labels", rel_line([coref(1, 1, 2)], [obj(1, KARIM, "PERSON"), obj(2, OSLO1, "LOC")]),
     ["span #1 [24, 28) LOC", "entity 'linked:1'", "one entity has one label"]),
    ("joined spans with two entity ids", rel_line([coref(1, 1, 2)], [obj(1, KARIM, "PERSON", entity_id="A"),
                                                                     obj(2, AHMED, "PERSON", entity_id="B")]),
     ["span #1 [36, 41) PERSON", "entity id 'B' differs from entity id 'A'", "coreference relations join"]),
    ("duplicate span ids", rel_line([], [obj(1, KARIM, "PERSON"), obj(1, AHMED, "PERSON")]),
     ["span #1 [36, 41) PERSON", "span id 1 is also the id of span #0 [0, 11) PERSON"]),
    ("relations not a list", rel_line({"from_id": 1}), ["`relations` is a JSON object, not a list"]),
    ("relation not an object", rel_line([[1, 2, "coref"]]), ["relation #0 is a JSON list"]),
    ("relation without a type", rel_line([{"from_id": 1, "to_id": 2}]), ["relation #0 has no type"]),
    ("both label and entities", dict(line([[*KARIM, "PERSON"]]), entities=[obj(1, KARIM, "PERSON")]),
     ["both `label` and `entities`"]),
    ("five elements", line([[*KARIM, "PERSON", "E1", "x"]]),
     ["#0", "not [start, end, LABEL] or [start, end, LABEL, ENTITY]"]),
]


@pytest.mark.parametrize("case, record, fragments", BAD, ids=[b[0] for b in BAD])
def test_bad_entity_input_is_named(tmp_path, case, record, fragments):
    path = write(tmp_path, [record])
    with pytest.raises(CorpusError) as err:
        load_corpus(str(path))
    message = str(err.value)
    for fragment in [str(path), "line 1", "document d1", *fragments]:
        assert fragment in message, (fragment, message)


def _entity_metrics(store, run_id):
    from tests.metrics.conftest import make_context
    from workbench.metrics import compute_metrics, metric_frame
    table = compute_metrics(metric_frame(store, [run_id]), make_context(), families=("entities",), originals=False)
    return table.loc[run_id]


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("generator", ["random", "upos"])
def test_consistent_run_gives_linked_mentions_one_pseudonym(tmp_path, store, form, generator):
    """The ids make "Ahmed Karim" and "Ahmed" one entity: one pseudonym under --consistent document,
    and consistency 1.0 where the same file without ids reads n/a ("–": no entity mentioned twice)."""
    from workbench.pipeline import generate_run
    linked = write(tmp_path, [FORMS[form]], "linked.jsonl")
    result = generate_run(str(linked), generator, options={"consistent": "document"}, store=store,
                          tagger="spacy", progress=False, quiet_tagger=True)
    picks = {p.span_index: p.pseudonym for p in store.predictions(result.run_id)}
    assert picks[0] == picks[3] and not any(p.failed for p in store.predictions(result.run_id))
    assert _entity_metrics(store, result.run_id)["consistency"] == 1.0
    from workbench.store.tidy_frame import run_frame  # what the merged-entity rate groups by, too
    frame = run_frame(store, [result.run_id])
    assert frame.groupby("entity_id")["original"].apply(set).map(len).max() == 2  # {"Ahmed Karim", "Ahmed"}

    bare = write(tmp_path, [line([[*KARIM, "PERSON"], [*LINA, "PERSON"], [*AHMED, "PERSON"]])], "bare.jsonl")
    plain = generate_run(str(bare), generator, options={"consistent": "document"}, store=store, tagger="spacy",
                         progress=False, quiet_tagger=True)
    assert math.isnan(_entity_metrics(store, plain.run_id)["consistency"])


def test_doccano_export_keeps_the_files_entities(tmp_path, store):
    """export --format doccano writes a stated entity as a 4th element; the file loads back with it,
    though the pseudonyms no longer read alike. Rule-grouped spans stay [start, end, LABEL]. The
    element is the entity's export key (e001, issue 24 item 9: a file's own id may be a name);
    --with-originals writes the file's own id."""
    from workbench.exchange.exporters import export_run
    from workbench.pipeline import generate_run
    path = write(tmp_path, [FORMS["doccano relations"]])
    original = load_corpus(str(path))
    run = generate_run(original, "random", store=store, tagger="spacy", progress=False, quiet_tagger=True)
    for with_originals, stated in ((False, "e001"), (True, "linked:11")):
        out = export_run(store, run.run_id, "doccano", tmp_path / "out.jsonl", with_originals=with_originals)
        labels = json.loads(out.read_text(encoding="utf-8").splitlines()[0])["label"]
        assert [len(x) for x in labels] == [4, 3, 3, 4, 3] and labels[0][3] == labels[3][3] == stated
        back = load_corpus(str(out)).documents[0]
        assert [s.entity_id for s in back.spans][::3] == [f"d1|{stated}"] * 2
        assert entity_counts(load_corpus(str(out))).from_file == 1


def test_generate_prints_the_entity_counts(tmp_path):
    from tests.helpers.entry_point import wb
    path = write(tmp_path, [FORMS["4th element"]])
    out = wb("generate", "-c", str(path), "-g", "random", "--consistent", "document", "--store",
             tmp_path / "runs.sqlite", "--no-progress", "--tagger", "spacy")
    assert out.returncode == 0, out.stderr
    assert "1 entities from the file's ids, 2 by the grouping rule" in out.stdout
    bad = write(tmp_path, [rel_line([coref(9, 2, 5)])], "bad.jsonl")
    refused = wb("generate", "-c", str(bad), "-g", "random", "--store", tmp_path / "other.sqlite",
                 "--no-progress", "--tagger", "spacy")
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert f"file {bad}, document d1: line 1: relation #0 (id 9) has to_id 5" in refused.stderr
    assert not (tmp_path / "other.sqlite").exists()  # nothing written for a bad file


def test_corpus_scope_joins_the_files_entities_across_documents(tmp_path, store):
    """Ids name entities within their line; `--consistent corpus` joins look-alike mentions across
    documents, so E1 of d1 and E1 of d2 (both with an "Ahmed Karim") get one pseudonym, and with
    them each document's linked "Ahmed"."""
    from workbench.pipeline import generate_run
    spans = [[*KARIM, "PERSON", "E1"], [*LINA, "PERSON"], [*AHMED, "PERSON", "E1"]]
    path = write(tmp_path, [line(spans), line(spans, doc_id="d2")])
    result = generate_run(str(path), "random", options={"consistent": "corpus", "mode": "repL"}, store=store,
                          tagger="spacy", progress=False, quiet_tagger=True)
    picks = {(p.doc_id, p.span_index): p.pseudonym for p in store.predictions(result.run_id)}
    assert len({picks[d, i] for d in ("d1", "d2") for i in (0, 2)}) == 1
    assert picks["d1", 1] == picks["d2", 1]  # Lina: the rule, across documents
