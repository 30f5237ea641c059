"""Detection recall of imported runs (TAB's evaluation, 002's all-or-nothing recall;
workbench/metrics/detection.py), worked out by hand on imports over tiny_corpus.

The import (FILE below) leaves out three spans (they keep their text), writes one back as itself,
splices one ("Kowalski" of "Jan Kowalski" replaced, "Jan" kept), suppresses one and gives up
on one ("[FAILED]"). Spans, their \\w+ words, and masked or not:
    en-1  Anna Berg ✓2  Oslo ✓1  1975 ✓1  Paris ✓1  1999 ✓1  Anna Berg ✗2 (left out)  Nordbank ✓1
          Olle ✓1  Oslo ✓1 (suppressed)  teacher ✗1 (left out)        10 spans, 8 masked; 12 words, 9
    en-2  Jan Kowalski ✗ 1 of 2 (spliced)  Eva Nowak ✓2  Warsaw ✗1 (written back)
          J. Wołąsiewicz ✓2                                           4 spans, 2 masked; 7 words, 5
    sv-1  Karin Ström ✓2  Göteborg ✓1  1980 ✓1  läkare ✓1  Sahlgrenska ✓1 ([FAILED])
          Karin Ström ✓2  Malmö ✗1 (left out)                          7 spans, 6 masked; 9 words, 8
    mentions 16 / 21, words 22 / 28.
Entities (same label and text within a document): en-1 8 (Anna Berg has an unmasked mention, teacher
is unmasked: 6 all masked), en-2 4 (Eva Nowak, Wołąsiewicz: 2), sv-1 6 (all but Malmö: 5): 13 / 18.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

from tests.exchange.test_import_alignment import write
from tests.helpers.corpus import document_with_mentions
from tests.metrics.conftest import WordListTagger, add_run, make_context
from workbench.data_model import Corpus
from workbench.exchange.importers import import_run
from workbench.metrics import family, metric_frame
from workbench.metrics.detection import masked_words, with_identifier_types
from workbench.metrics.per_label import label_metric_names, label_metrics

RECALLS = ("recall_mention", "recall_token", "recall_entity_all", "recall_mention_direct", "recall_mention_quasi",
           "recall_token_direct", "recall_token_quasi")


def _entries(doc, replacements: dict[int, str]) -> list:
    """Entries for the spans of doc named in replacements (span index → replacement)."""
    return [[doc.spans[i].start, doc.spans[i].end, text] for i, text in replacements.items()]


def import_file(corpus) -> dict:
    en1, en2, sv1 = (corpus.document(d) for d in ("en-1", "en-2", "sv-1"))
    kowalski = en2.spans[0]
    return {
        "en-1": _entries(en1, {0: "Eva Lund", 1: "Bergen", 2: "1980", 3: "Rome", 4: "2001", 6: "Acme",
                               7: "Nils", 8: ""}),  # 5 (Anna Berg) and 9 (teacher) left out
        "en-2": [[kowalski.start + 4, kowalski.end, "Nowicki"]]  # only "Kowalski": spliced
        + _entries(en2, {1: "Ola Nord", 2: "Warsaw", 3: "K. Nowicki"}),  # Warsaw written back
        "sv-1": _entries(sv1, {0: "Lena Ek", 1: "Lund", 2: "1985", 3: "", 4: "[FAILED]", 5: "Lena Ek"}),
    }


@pytest.fixture
def imported(tmp_path, store, tiny_corpus):
    run = import_run(store, write(tmp_path, import_file(tiny_corpus)), tiny_corpus, tagger=WordListTagger())
    return run.run_id, metric_frame(store, [run.run_id])


def test_the_import_is_as_the_docstring_says(imported):
    _, frame = imported
    en2 = frame[frame["doc_id"] == "en-2"]
    assert en2["pseudonym"].tolist() == ["Jan Nowicki", "Ola Nord", "Warsaw", "K. Nowicki"]
    assert en2["note"].iat[0].startswith("imported: spliced")
    assert frame.loc[frame["doc_id"] == "en-1", "pseudonym"].tolist()[5] == "Anna Berg"


def test_mention_token_and_all_or_nothing_recall_by_hand(imported):
    run_id, frame = imported
    row = family("detection").compute(frame, make_context()).loc[run_id]
    assert row["recall_mention"] == pytest.approx(16 / 21)
    assert row["recall_token"] == pytest.approx(22 / 28)
    assert row["recall_entity_all"] == pytest.approx(13 / 18)
    assert row["recall_by_construction"] == 0.0
    # tiny_corpus has no identifier types: DIRECT / QUASI are not measured.
    assert all(math.isnan(row[m]) for m in RECALLS[3:])


def test_an_entity_with_one_unmasked_mention_is_not_protected(tmp_path, store, tiny_corpus):
    """Anna Berg masked once of twice: mention recall 1/2, all-or-nothing 0 (002 §3.3's example)."""
    en1 = tiny_corpus.document("en-1")
    one = Corpus("tiny", "test", (en1,))
    run = import_run(store, write(tmp_path, {"en-1": _entries(en1, {0: "Eva Lund"})}), one, tagger=WordListTagger())
    frame = metric_frame(store, [run.run_id])
    anna = frame[frame["original"] == "Anna Berg"]
    row = family("detection").compute(anna).loc[run.run_id]
    assert row["recall_mention"] == 0.5 and row["recall_token"] == 0.5 and row["recall_entity_all"] == 0.0


def test_kept_words_of_a_spliced_span_are_read_from_its_ends():
    assert masked_words("Jan Kowalski", "Jan Nowicki", spliced=True) == (1, 2)
    assert masked_words("Jan Kowalski", "Mr X Kowalski", spliced=True) == (1, 2)
    # Not spliced: all-or-nothing, even where the pseudonym shares a word with the original.
    assert masked_words("Jan Kowalski", "Jan Nowicki", spliced=False) == (2, 2)
    assert masked_words("Jan Kowalski", "Jan Kowalski", spliced=False) == (0, 2)
    assert masked_words("Jan Kowalski", "", spliced=False) == (2, 2)  # suppressed


def typed_corpus() -> Corpus:
    text = "Anna Berg was born in Oslo in 1975. Anna Berg is a teacher."
    mentions = [("Anna Berg", "PERSON", {"identifier_type": "DIRECT"}), ("Oslo", "LOC", {"identifier_type": "QUASI"}),
                ("1975", "DATETIME", {"identifier_type": "QUASI"}),
                ("Anna Berg", "PERSON", {"identifier_type": "DIRECT"}),
                ("teacher", "DEM", {"identifier_type": "QUASI"})]
    return Corpus("typed", "test", (document_with_mentions("typed", "d1", text, mentions),))


def test_direct_and_quasi_identifiers_apart(tmp_path, store):
    """DIRECT: Anna Berg masked once of twice (mentions 1/2, words 2/4); QUASI: Oslo replaced,
    teacher suppressed, 1975 left out (2/3, 2/3)."""
    corpus = typed_corpus()
    doc = corpus.document("d1")
    run = import_run(store, write(tmp_path, {"d1": _entries(doc, {0: "Eva Lund", 1: "Bergen", 4: ""})}), corpus,
                     tagger=WordListTagger())
    frame = metric_frame(store, [run.run_id])  # the store's snapshot keeps the identifier types (migration 8)
    row = family("detection").compute(frame).loc[run.run_id]
    assert family("detection").compute(with_identifier_types(frame, corpus)).loc[run.run_id].equals(row)
    assert row["recall_mention_direct"] == 0.5 and row["recall_token_direct"] == 0.5
    assert row["recall_mention_quasi"] == pytest.approx(2 / 3) and row["recall_token_quasi"] == pytest.approx(2 / 3)
    assert row["recall_mention"] == pytest.approx(3 / 5) and row["recall_entity_all"] == pytest.approx(2 / 4)


def test_a_generated_or_reference_run_is_recall_1_by_construction_not_measured(store, tiny_corpus):
    """A run over the gold spans reads NaN with recall_by_construction 1, also the `original`
    reference run, whose every span keeps its text (that is leak_verbatim's to say, not recall's)."""
    from workbench.exchange.reference import reference_run
    generated = add_run(store, tiny_corpus, {d.doc_id: ["X"] * len(d.spans) for d in tiny_corpus.documents})
    original = reference_run(store, tiny_corpus, "original", tagger=WordListTagger()).run_id
    table = family("detection").compute(metric_frame(store, [generated, original]))
    for run_id in (generated, original):
        assert table.at[run_id, "recall_by_construction"] == 1.0
        assert all(math.isnan(table.at[run_id, m]) for m in RECALLS), run_id


def test_mention_recall_per_label(imported):
    """English part: PERSON Anna Berg ✓ ✗, Olle ✓, Jan Kowalski ✗, Eva Nowak ✓, Wołąsiewicz ✓ (4/6);
    LOC Oslo ✓ ✓, Paris ✓, Warsaw ✗ (3/4). Token and entity recall are pooled: not per label."""
    run_id, frame = imported
    table = label_metrics(frame, make_context())
    en = table[table["run_id"] == f"{run_id}@en"].set_index("label")
    assert en.at["PERSON", "recall_mention"] == pytest.approx(4 / 6)
    assert en.at["LOC", "recall_mention"] == pytest.approx(3 / 4)
    assert en.at["DEM", "recall_mention"] == 0.0
    names = label_metric_names()
    assert "recall_mention" in names and "recall_token" not in names and "recall_entity_all" not in names


def test_detection_reaches_metrics_csv_and_its_table(tmp_path, store, tiny_corpus):
    from workbench.reports import write_report
    run = import_run(store, write(tmp_path, import_file(tiny_corpus)), tiny_corpus, tagger=WordListTagger())
    generated = add_run(store, tiny_corpus, {d.doc_id: ["X"] * len(d.spans) for d in tiny_corpus.documents})
    write_report(store, [run.run_id, generated], tmp_path / "r", formats=("csv",), context=make_context())
    metrics = pd.read_csv(tmp_path / "r" / "metrics.csv", index_col="run_id")
    # The report is per language: the English rows of the import, 10 of 14 mentions.
    assert metrics.at[f"{run.run_id}@en", "recall_mention"] == pytest.approx(10 / 14)
    assert metrics.at[f"{generated}@en", "recall_by_construction"] == 1.0
    assert math.isnan(metrics.at[f"{generated}@en", "recall_mention"])
    table = pd.read_csv(tmp_path / "r" / "table_detection.csv", index_col="run_id")
    assert table.at[f"{run.run_id}@sv", "recall_mention"] == pytest.approx(6 / 7)
    assert "recall_entity_all" in table.columns
