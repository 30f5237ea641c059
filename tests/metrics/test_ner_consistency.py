"""NER-type consistency (paper 000 §4; workbench/metrics/ner_consistency.py), worked out by hand with a
word-list NER tagger: "Anna", "Kari" are PER, "Oslo", "Bergen", "Norway" are LOC, nothing else is tagged.

    d1  "Anna Berg lives in Oslo, Norway."   spans "Anna Berg" (PERSON; original type PER) and
                                             "Oslo" (LOC; LOC)
    d2  "Mr. Smith paid 1,500 kr."           span "Smith" (PERSON; original type none)
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from tests.metrics.conftest import add_run, make_context
from workbench.data_model import Corpus
from workbench.loaders.validate import RawSpan, build_document
from workbench.metrics import MetricConfig, MetricContext, family, metric_frame
from workbench.metrics.backends.ner_models import region_type
from workbench.metrics.per_label import label_metrics

D1 = "Anna Berg lives in Oslo, Norway."
D2 = "Mr. Smith paid 1,500 kr."


class WordTypeTagger:
    """Entities of known words wherever they stand; records every text it is given."""

    id = "test:word-types"
    TYPES = {"Anna": "PER", "Kari": "PER", "Oslo": "LOC", "Bergen": "LOC", "Norway": "LOC"}

    def __init__(self) -> None:
        self.seen: list[str] = []

    def entities(self, texts):
        self.seen.extend(texts)
        return [sorted((m.start(), m.end(), self.TYPES[m.group()])
                       for m in re.finditer(r"\b(" + "|".join(self.TYPES) + r")\b", t)) for t in texts]


def corpus() -> Corpus:
    return Corpus("ner", "test", (
        build_document("ner", "d1", D1, "en", [RawSpan(0, 9, "PERSON"), RawSpan(19, 23, "LOC")]),
        build_document("ner", "d2", D2, "en", [RawSpan(4, 9, "PERSON")]),
    ))


def context_with(tagger, *, cache: bool = False) -> MetricContext:
    context = MetricContext(MetricConfig(cache=True)) if cache else make_context()
    context.set_ner_tagger("en", tagger)
    return context


def scores(store, pseudonyms, tagger=None):
    frame = metric_frame(store, [add_run(store, corpus(), pseudonyms, name=str(pseudonyms))])
    result = family("ner").compute(frame, context_with(tagger or WordTypeTagger()))
    assert len(result) == 1
    return result.iloc[0]


def test_region_type_is_the_entity_overlapping_most_and_none_where_nothing_is_tagged():
    entities = [(0, 4, "PER"), (5, 12, "LOC")]
    assert region_type(entities, 0, 9) == "PER"  # 4 characters of each: the first of equals
    assert region_type(entities, 2, 12) == "LOC"  # 2 of PER, 7 of LOC
    assert region_type(entities, 12, 20) == "none"
    assert region_type(entities, 3, 3) == "none"  # an empty region (a suppressed span)


def test_types_that_all_agree_score_one_and_none_agrees_with_none(store):
    # PER=PER ("Kari Dahl"), LOC=LOC ("Bergen"), none=none ("Jones"): 3 of 3.
    s = scores(store, {"d1": ["Kari Dahl", "Bergen"], "d2": ["Jones"]})
    assert s["ner_type_accuracy"] == 1.0
    assert (s["ner_type_precision"], s["ner_type_recall"], s["ner_type_f1"]) == (1.0, 1.0, 1.0)
    assert s["ner_original_tagged"] == pytest.approx(2 / 3)


def test_the_replacement_is_tagged_at_its_place_in_the_pseudonymised_text(store):
    # "Kari lives in Anna, Norway.": "Anna" stands at 14-18 (the original's 19-23 would read Norway, LOC).
    # d1: PER=PER agrees, LOC vs PER not; d2: none vs LOC ("Bergen") not: accuracy 1/3.
    # PER: predicted twice, gold once, one hit: P 1/2, R 1, F1 2/3; LOC: predicted once, gold once, no hit: 0.
    s = scores(store, {"d1": ["Kari", "Anna"], "d2": ["Bergen"]})
    assert s["ner_type_accuracy"] == pytest.approx(1 / 3)
    assert s["ner_type_precision"] == pytest.approx((1 / 2 + 0) / 2)
    assert s["ner_type_recall"] == pytest.approx((1 + 0) / 2)
    assert s["ner_type_f1"] == pytest.approx((2 / 3 + 0) / 2)


def test_a_suppressed_span_is_typed_none_and_a_failed_span_never_agrees(store):
    # Suppressed: "" over "Anna Berg" (PER) disagrees, "" over "Smith" (none) agrees; Bergen agrees: 2/3.
    assert scores(store, {"d1": ["", "Bergen"], "d2": [""]})["ner_type_accuracy"] == pytest.approx(2 / 3)
    # FAILED over "Smith" (none) disagrees although nothing was tagged there: only Bergen agrees, 1/3.
    assert scores(store, {"d1": [None, "Bergen"], "d2": [None]})["ner_type_accuracy"] == pytest.approx(1 / 3)


def test_no_entity_type_on_either_side_leaves_precision_recall_and_f1_undefined(store):
    frame = metric_frame(store, [add_run(store, corpus(), {"d1": ["x", "y"], "d2": ["z"]})])
    frame = frame[frame["doc_id"] == "d2"]  # "Smith" (none) replaced by "z" (none)
    s = family("ner").compute(frame, context_with(WordTypeTagger())).iloc[0]
    assert s["ner_type_accuracy"] == 1.0 and s["ner_original_tagged"] == 0.0
    assert np.isnan(s["ner_type_f1"]) and np.isnan(s["ner_type_precision"])


def test_an_over_masked_document_is_tagged_as_the_system_wrote_it_and_only_gold_spans_count(store):
    # The system also replaced "Mr." (0-3) and "Norway" (25-31), outside every gold span: the tagger reads
    # those edits, and the spans after them are found at their shifted places.
    frame = metric_frame(store, [add_run(store, corpus(), {"d1": ["Kari", "Bergen"], "d2": ["Oslo"]})])
    edits = {"d1": ((25, 31, "Kari"),), "d2": ((0, 3, "Mister"),)}
    frame["own_detections"] = [edits[d] for d in frame["doc_id"]]
    tagger = WordTypeTagger()
    s = family("ner").compute(frame, context_with(tagger)).iloc[0]
    assert "Kari lives in Bergen, Kari." in tagger.seen and "Mister Oslo paid 1,500 kr." in tagger.seen
    # PER=PER, LOC=LOC, none vs LOC: 2 of the 3 gold spans; the edit "Kari" over Norway is no span.
    assert s["ner_type_accuracy"] == pytest.approx(2 / 3)


def test_per_label_accuracy_is_the_mean_over_the_labels_spans(store):
    frame = metric_frame(store, [add_run(store, corpus(), {"d1": ["Kari", "Anna"], "d2": ["Bergen"]})])
    table = label_metrics(frame, context_with(WordTypeTagger()), families=("ner",)).set_index("label")
    # PERSON: "Anna Berg" agrees, "Smith" does not; LOC: "Oslo" does not.
    assert table.loc["PERSON", "ner_type_accuracy"] == 0.5 and table.loc["LOC", "ner_type_accuracy"] == 0.0
    assert table.loc["PERSON", "ner_original_tagged"] == 0.5 and table.loc["LOC", "ner_original_tagged"] == 1.0
    assert "ner_type_f1" not in table  # a macro over types, not a mean over spans


def test_a_second_report_reads_the_tags_from_the_disk_cache(store, tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path))
    frame = metric_frame(store, [add_run(store, corpus(), {"d1": ["Kari", "Anna"], "d2": ["Bergen"]})])
    first, second = WordTypeTagger(), WordTypeTagger()
    a = family("ner").compute(frame, context_with(first, cache=True))
    b = family("ner").compute(frame, context_with(second, cache=True))
    assert len(first.seen) == 4 and second.seen == []  # two originals, two pseudonymised texts, then none
    assert a.equals(b)
