"""`workbench annotations agreement --sample NAME`, and a message that says what is missing when no
two annotators tagged the same pseudonyms (issue 42: it printed `0 pseudonyms, observed nan`)."""

from __future__ import annotations

import pytest

from tests.helpers.entry_point import wb, wb_ok
from workbench.annotation import Annotation, AnnotationStore
from workbench.annotation.agreement_report import agreement_report
from workbench.infra.errors import WorkbenchError
from workbench.pipeline import generate_run
from workbench.store import RunStore


@pytest.fixture
def two_samples(tmp_path, tiny_corpus):
    """A store with one random run of tiny_corpus, and samples `a` (its first four pseudonyms) and
    `b` (the rest); anna and bo both tag `a`, only anna tags `b`."""
    store = RunStore(tmp_path / "runs.sqlite")
    run = generate_run(tiny_corpus, "random", options={"mode": "maskL"}, store=store, tagger="spacy",
                       quiet_tagger=True, progress=False).run_id
    items = [(p.doc_id, p.span_index) for p in store.predictions(run)]
    annotations = AnnotationStore(store)
    from workbench.annotation.storage import SampleItem
    sample_a = [SampleItem(run, d, i) for d, i in items[:4]]
    sample_b = [SampleItem(run, d, i) for d, i in items[4:]]
    annotations.create_sample("a", sample_a, {"runs": [run], "unit": "span"})
    annotations.create_sample("b", sample_b, {"runs": [run], "unit": "span"})
    # anna and bo agree on 3 of sample a's 4 pseudonyms; in b, anna tags 3 of them and bo none.
    annotations.save_many([Annotation(run, it.doc_id, it.span_index, "anna", "POS") for it in sample_a])
    annotations.save_many([Annotation(run, it.doc_id, it.span_index, "bo", "POS" if n < 3 else "GRAMMAR")
                           for n, it in enumerate(sample_a)])
    annotations.save_many([Annotation(run, it.doc_id, it.span_index, "anna", "GRAMMAR") for it in sample_b[:3]])
    store.close()
    return tmp_path / "runs.sqlite"


def test_agreement_of_one_sample_counts_only_its_pseudonyms(two_samples):
    of_a = wb_ok("annotations", "agreement", "--sample", "a", store=two_samples)
    assert "anna × bo: 4 pseudonyms, observed 0.750" in of_a
    store = AnnotationStore(two_samples)
    assert agreement_report(store, sample="a").tagged == {"anna": 4, "bo": 4}  # anna's tags of b left out
    assert agreement_report(store).tagged == {"anna": 7, "bo": 4}
    store.close()


def test_a_sample_no_two_annotators_tagged_says_what_is_missing_and_how_to_add_it(two_samples):
    result = wb("annotations", "agreement", "--sample", "b", store=two_samples)
    assert result.returncode == 2 and "nan" not in result.stderr and "Traceback" not in result.stderr
    message = result.stderr.strip()
    assert message.count("\n") == 0 and "in sample 'b'" in message and "anna 3" in message
    assert "second annotator" in message and "workbench annotations import" in message
    # Two annotators who share no pseudonym: each named with their count, never `0 pseudonyms, observed nan`.
    store = AnnotationStore(two_samples)
    for it in store.sample("b")[3:5]:
        store.save(Annotation(it.run_id, it.doc_id, it.span_index, "carl", "POS"))
    with pytest.raises(WorkbenchError, match="no pseudonym was tagged by two annotators .tagged: anna 3, carl 2"):
        agreement_report(store, sample="b")
    # Over all runs the pair anna × bo has items, so it reports, with a line for each empty pair.
    lines = agreement_report(store).lines()
    assert "anna × carl: no pseudonym tagged by both (anna tagged 7, carl 2)" in lines
    assert not any("nan" in line for line in lines)
    store.close()


def test_an_unknown_sample_names_the_samples_there_are(two_samples):
    result = wb("annotations", "agreement", "--sample", "c", store=two_samples)
    assert result.returncode == 2 and "no sample named 'c'" in result.stderr and "samples: a, b" in result.stderr
