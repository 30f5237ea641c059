"""Downstream utility (paper 002 §4; workbench/metrics/downstream.py): a CRF trained on a run's
pseudonymised documents and on the originals, both tested on original held-out documents.

The end-to-end corpora are four one-line documents, each naming one PERSON (a different name in
each) beside one ordinary word, so that every fold (K = 4, one document each) asks the tagger to
find a name it never saw:
    "saw Anna. saw cat."  the name and the ordinary word stand in the same context: only the
                          word itself (its capital) tells the entity
    "met Anna. saw cat."  the word before tells it too
Trained on the originals the tagger finds every held-out name (F1 1); the behaviour of the other
runs follows from what their training text keeps (the module docstring), worked out per test.
"""

from __future__ import annotations

import pytest

from tests.helpers.corpus import document_with_mentions
from tests.metrics.conftest import add_run, make_context
from workbench.data_model import Corpus
from workbench.metrics import MetricConfig, MetricContext, downstream, family, metric_frame
from workbench.metrics.backends import downstream_model
from workbench.metrics.backends.downstream_model import EntityCounts, entities, entity_counts
from workbench.metrics.metric_frame import document_views

NAMES = ("Anna", "Olle", "Karin", "Jan")
THINGS = ("cat", "dog", "cup", "pen")


def corpus(verb: str) -> Corpus:
    return Corpus(f"downstream-{verb}", "test", tuple(
        document_with_mentions("downstream", f"d{n}", f"{verb} {name}. saw {thing}.", [(name, "PERSON")])
        for n, (name, thing) in enumerate(zip(NAMES, THINGS))))


def scores(store, verb: str, replace, context=None) -> dict[str, float]:
    """The family's row for a run replacing each document's name by replace(name)."""
    c = corpus(verb)
    run_id = add_run(store, c, {d.doc_id: [replace(d.spans[0].text)] for d in c.documents}, name=repr(replace))
    row = family("downstream").compute(metric_frame(store, [run_id]), context or make_context()).iloc[0]
    return row.to_dict()


@pytest.mark.parametrize("tags, expected, why", [
    (["B-P", "I-P", "O", "B-L"], {(0, 2, "P"), (3, 4, "L")}, "B opens, I continues"),
    (["B-P", "B-P"], {(0, 1, "P"), (1, 2, "P")}, "a B after a B opens a second entity"),
    (["O", "I-P", "I-P"], {(1, 3, "P")}, "an I after O opens one (conlleval)"),
    (["B-P", "I-L"], {(0, 1, "P"), (1, 2, "L")}, "an I of another label opens one"),
    (["O", "O"], set(), "no entity"),
])
def test_entities_read_bio_as_conlleval(tags, expected, why):
    assert entities(tags) == expected, why


def test_micro_f1_pools_exact_matches_over_sentences():
    gold = [["B-P", "I-P", "O", "B-L"], ["B-P", "O"]]
    predicted = [["B-P", "O", "O", "B-L"], ["B-P", "B-L"]]
    # Sentence 1: L matches; P predicted over 1 token against 2 (a miss and a false alarm).
    # Sentence 2: P matches; L is a false alarm. TP 2, FP 2, FN 1: F1 = 4 / 7.
    counts = entity_counts(gold, predicted)
    assert counts == EntityCounts(2, 2, 1)
    assert counts.f1 == pytest.approx(4 / 7)
    assert EntityCounts().f1 != EntityCounts().f1  # NaN: nothing to find, nothing found


def test_labels_are_carried_onto_the_text_placed_for_each_span(store):
    c = Corpus("carry", "test", (document_with_mentions(
        "carry", "d", "Anna Berg met Olle in Oslo.", [("Anna Berg", "PERSON"), ("Olle", "PERSON"), ("Oslo", "LOC")]),))
    run_id = add_run(store, c, {"d": ["Eva Lund Ek", "[PERSON]", ""]})
    frame = metric_frame(store, [run_id])
    view = next(document_views(frame))
    original, pseudonymised = downstream.training_sequences(view, frame.loc[view.rows, "label"].tolist())
    assert original == [(("Anna", "Berg", "met", "Olle", "in", "Oslo", "."),
                         ("B-PERSON", "I-PERSON", "O", "B-PERSON", "O", "B-LOC", "O"))]
    # The pseudonym's three words are the entity; the label token's brackets too; the suppressed
    # Oslo leaves no token, so "in" is followed by the full stop.
    assert pseudonymised == [(("Eva", "Lund", "Ek", "met", "[", "PERSON", "]", "in", "."),
                              ("B-PERSON", "I-PERSON", "I-PERSON", "O", "B-PERSON", "I-PERSON", "I-PERSON", "O", "O"))]


def test_text_changed_outside_the_spans_is_tagged_outside(store):
    # Over-masking: an imported system that also replaced "met" (its own detection, no corpus
    # span) wrote "***" there; M' trains on that text, and only the corpus span is an entity.
    from workbench.store.own_detections import save_own_detections
    c = Corpus("over", "test", (document_with_mentions("over", "d", "Anna met Olle.", [("Olle", "PERSON")]),))
    run_id = add_run(store, c, {"d": ["Bo"]})
    save_own_detections(store, run_id, {"d": [(5, 8, "***")]})
    frame = metric_frame(store, [run_id])
    view = next(document_views(frame))
    assert view.pseudo_text == "Anna *** Bo."
    original, pseudonymised = downstream.training_sequences(view, ["PERSON"])
    assert original == [(("Anna", "met", "Olle", "."), ("O", "O", "B-PERSON", "O"))]
    assert pseudonymised == [(("Anna", "*", "*", "*", "Bo", "."), ("O", "O", "O", "O", "B-PERSON", "O"))]


def test_folds_are_fixed_by_the_document_ids_and_never_empty():
    ids = [f"doc-{n}" for n in range(7)]
    folds = downstream.document_folds(ids, 5)
    assert folds == downstream.document_folds(list(reversed(ids)), 5)  # the order given plays no part
    assert sorted(set(folds.values())) == [0, 1, 2, 3, 4]
    assert sorted(folds.values()) == [0, 0, 1, 1, 2, 3, 4]  # dealt round-robin
    assert set(downstream.document_folds(ids[:3], 5).values()) == {0, 1, 2}  # fewer documents: fewer folds


def test_the_original_reference_run_loses_nothing(store):
    row = scores(store, "saw", lambda name: name)
    assert row["downstream_f1_original"] == 1.0  # every held-out name found (its capital tells it)
    assert row["downstream_f1"] == row["downstream_f1_original"]
    assert row["downstream_delta_f1"] == 0.0  # exactly: same training text, same model


def test_pseudonyms_keep_what_a_name_looks_like(store):
    # "Eva" for "Anna": M' learns capitalised words as names and finds the unseen ones.
    row = scores(store, "saw", lambda name: {"Anna": "Eva", "Olle": "Bo", "Karin": "Lena", "Jan": "Per"}[name])
    assert (row["downstream_f1"], row["downstream_delta_f1"]) == (1.0, 0.0)


def test_suppressing_every_span_leaves_no_entity_to_learn(store):
    row = scores(store, "saw", lambda name: "")
    assert row["downstream_f1_original"] == 1.0
    assert row["downstream_f1"] == 0.0  # M' never saw an entity: it predicts none
    assert row["downstream_delta_f1"] == 1.0  # = downstream_f1_original


def test_a_label_token_teaches_the_label_word_and_nothing_of_the_original(store):
    # M' trained on "saw PERSON." has learnt the word PERSON, which no original holds: it finds
    # none of the names. Even where the word before tells a name ("met Anna."), the label word
    # alone explains every training entity and L1 leaves "met" no weight: still none.
    for verb in ("saw", "met"):
        row = scores(store, verb, lambda name: "PERSON")
        assert row["downstream_f1_original"] == 1.0, verb
        assert (row["downstream_f1"], row["downstream_delta_f1"]) == (0.0, 1.0), verb


def test_a_run_over_one_document_gets_no_score(store):
    c = Corpus("one", "test", (document_with_mentions("one", "d", "saw Anna.", [("Anna", "PERSON")]),))
    frame = metric_frame(store, [add_run(store, c, {"d": ["Eva"]})])
    row = family("downstream").compute(frame, make_context()).iloc[0]
    assert row.isna().all()


def test_the_baseline_is_trained_once_per_fold_and_a_second_report_trains_nothing(store, monkeypatch, tmp_path):
    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path / "cache"))
    trained = []
    real = downstream_model.train_tagger
    monkeypatch.setattr(downstream_model, "train_tagger", lambda sequences: trained.append(1) or real(sequences))
    c = corpus("saw")
    pseudonyms = {"d0": ["Eva"], "d1": ["Bo"], "d2": ["Lena"], "d3": ["Per"]}
    runs = [add_run(store, c, pseudonyms, name="pseudonyms"),
            add_run(store, c, {d.doc_id: [d.spans[0].text] for d in c.documents}, name="original")]
    frame = metric_frame(store, runs)

    def report():
        return family("downstream").compute(frame, MetricContext(MetricConfig(similarity_baseline="none")))

    first = report()
    # Four folds: M once per fold for both runs, M' of the pseudonym run once per fold; the
    # original run's M' is M (the same training text), so it trains nothing more.
    assert len(trained) == 8
    second = report()  # a fresh context: only the cache on disk remembers
    assert len(trained) == 8
    assert second.equals(first)


def test_the_report_shows_the_family_in_table_5(store):
    # A suppression over the "saw" corpus: M finds every name (1.000), M' none (0.000), ΔF1 1.000.
    from workbench.reports.content import build_report
    from workbench.reports.table_specs import TABLES
    from workbench.reports.tables import flat_cells
    c = corpus("saw")
    run_id = add_run(store, c, {d.doc_id: [""] for d in c.documents}, name="suppressed")
    content = build_report(store, [run_id], context=make_context(), families=["downstream"], originals=False)
    headers, rows = flat_cells(content.table, next(t for t in TABLES if t.name == "table5_beyond"))
    shown = dict(zip(headers, rows[0]))
    assert shown["Downstream NER (002 §4): F1 orig.↑"] == "1.000"
    assert shown["Downstream NER (002 §4): F1 pseud.↑"] == "0.000"
    assert shown["Downstream NER (002 §4): ΔF1↓"] == "1.000"


def test_without_sklearn_crfsuite_the_error_names_what_to_install(monkeypatch):
    import sys

    from workbench.infra.errors import WorkbenchError
    monkeypatch.setitem(sys.modules, "sklearn_crfsuite", None)  # import fails as if not installed
    with pytest.raises(WorkbenchError, match=r"pip install sklearn-crfsuite"):
        downstream_model.train_tagger([(("Anna",), ("B-PERSON",))])
