"""Text compared as text in the metric families (issue 37): an import whose replacements are the
originals written in NFD is the original run, and every family that compares a replacement with
its original (overlap, verbatim leak, detection, masking, borrowed identities, entity coherence)
gives the same values in NFC and in NFD.

The import goes through the real path (workbench.exchange.importers.import_run) over the tiny
corpus, whose Swedish document and "J. Wołąsiewicz" have letters that NFD decomposes (6 of its
21 spans; the other 15 are ASCII, the same in either form, so the import read 15 / 21 = 0.714 kept
verbatim before the fix).
"""

from __future__ import annotations

import json
import unicodedata

import pandas as pd
import pytest

from tests.metrics.conftest import WordListTagger, make_context
from workbench.exchange.importers import import_run
from workbench.metrics import compute_metrics, family, metric_frame
from workbench.metrics.borrowed import span_values as borrowed_values
from workbench.metrics.entity_coherence import entity_values
from workbench.metrics.overlap import span_values as overlap_values


def NFD(text: str) -> str:
    return unicodedata.normalize("NFD", text)


def import_originals(store, corpus, tmp_path, form):
    data = {d.doc_id: [[s.start, s.end, form(s.text)] for s in d.spans] for d in corpus.documents}
    path = tmp_path / f"{form.__name__}.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return import_run(store, path, corpus, tagger=WordListTagger(), name=f"originals-{form.__name__}").run_id


def nfc(text: str) -> str:
    return text


MEASURES = ["leak_verbatim", "overlap_absolute", "overlap_partial", "overlap_partial_content", "words_masked",
            "recall_mention", "recall_token"]


def test_an_nfd_import_of_the_originals_reads_100_percent_kept_verbatim(store, tiny_corpus, tmp_path):
    changed = [s.text for d in tiny_corpus.documents for s in d.spans if NFD(s.text) != s.text]
    assert len(changed) == 6  # of 21 spans: the test's premise, that NFD changes some of them
    nfd_run = import_originals(store, tiny_corpus, tmp_path, NFD)
    nfc_run = import_originals(store, tiny_corpus, tmp_path, nfc)
    frame = metric_frame(store, [nfd_run, nfc_run])
    stored = frame[frame["run_id"] == nfd_run]
    # The store keeps the file's text as written: only the comparison normalises.
    assert (stored["pseudonym"] == stored["original"].map(NFD)).all()
    assert (stored["pseudonym"] != stored["original"]).sum() == 6
    table = compute_metrics(frame, make_context(), families=("overlap", "masking"), originals=False,
                            per_language=False)
    detection = family("detection").compute(frame, make_context())
    for run in (nfd_run, nfc_run):
        assert table.at[run, "leak_verbatim"] == 1.0
        assert table.at[run, "overlap_partial"] == pytest.approx(18 / 21)  # numerals (1975, 1999, 1980) never count
        assert table.at[run, "words_masked"] == 0.0  # a span written back as itself masks nothing
        assert detection.at[run, "recall_mention"] == 0.0
        assert detection.at[run, "recall_token"] == 0.0
    assert table.loc[nfd_run, MEASURES[:5]].tolist() == table.loc[nfc_run, MEASURES[:5]].tolist()


def span_frame(rows, form=nfc):
    """rows: (doc_id, entity_id, original, pseudonym), Swedish, one run; texts put in `form`."""
    return pd.DataFrame([{"run_id": "r", "doc_id": d, "entity_id": e, "span_index": i, "original": form(o),
                          "pseudonym": form(p), "failed": False, "lang": "sv", "label": "personal_name"}
                         for i, (d, e, o, p) in enumerate(rows)])


ROWS = [
    ("d1", "E1", "Björn Ångström", "Teresa Bäckström"),  # no overlap, no leak (NFD's "m" fragment)
    ("d1", "E2", "Åsa Öberg", "Åsa Lind"),  # a shared word: partial overlap
    ("d1", "E3", "Göteborg", "göteborg"),  # the original itself
    ("d1", "E4", "Malmö", "Björn Ångström"),  # E1's value: borrowed
    ("d2", "E5", "Örebro", "Lars Öberg"),  # a name word of E2 (another document): borrowed in the corpus
]


@pytest.mark.parametrize("form", [NFD, lambda text: text.replace("ö", "o\u0308")], ids=["nfd", "mixed"])
def test_overlap_and_borrowed_give_the_same_values_in_nfc_and_nfd(form):
    expected_overlap = overlap_values(span_frame(ROWS))
    assert expected_overlap["overlap_partial"].tolist() == [0, 1, 1, 0, 0]
    assert expected_overlap["leak_verbatim"].tolist() == [0, 0, 1, 0, 0]
    pd.testing.assert_frame_equal(overlap_values(span_frame(ROWS, form)), expected_overlap)
    # One side NFD, the other NFC: pseudonyms only.
    mixed = span_frame(ROWS)
    mixed["pseudonym"] = mixed["pseudonym"].map(form)
    pd.testing.assert_frame_equal(overlap_values(mixed), expected_overlap)

    expected_borrowed = borrowed_values(span_frame(ROWS))
    assert expected_borrowed["borrowed_value_document"].tolist() == [0, 0, 0, 1, 0]
    assert expected_borrowed["borrowed_corpus"].tolist() == [0, 0, 0, 1, 1]
    pd.testing.assert_frame_equal(borrowed_values(mixed), expected_borrowed)
    pd.testing.assert_frame_equal(borrowed_values(span_frame(ROWS, form)), expected_borrowed)


def test_entity_coherence_reads_one_pseudonym_written_in_two_forms_as_one():
    rows = [("d1", "E1", "Björn", "Örjan"), ("d1", "E1", "Björn", NFD("Örjan")), ("d1", "E2", "Åsa", "Örjan")]
    values = entity_values(span_frame(rows)).set_index("entity")
    assert values.at["E1", "consistency"] == 1.0  # both mentions got "Örjan"
    assert values.at["E2", "merged_entity_rate"] == 1.0  # and E2's "Örjan" is E1's too
