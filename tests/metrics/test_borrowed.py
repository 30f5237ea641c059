"""Borrowed identities (workbench.metrics.borrowed) on hand-made rows: what counts as a name
word, whose originals lend, per document and per corpus."""

from __future__ import annotations

import pandas as pd
import pytest

from workbench.metrics.borrowed import compute, name_words, span_values


def frame(rows, run_id="r"):
    """rows: (doc_id, entity_id, original, pseudonym[, failed]) in one run, English."""
    return pd.DataFrame([{"run_id": run_id, "doc_id": d, "entity_id": e, "span_index": i, "original": o,
                          "pseudonym": p, "failed": bool(rest and rest[0]), "lang": "en"}
                         for i, (d, e, o, p, *rest) in enumerate(rows)])


@pytest.mark.parametrize("text, words", [
    ("Mr Jan de Vries", {"jan", "vries"}),  # titles and name particles are no name words
    ("The Hague", {"hague"}),  # a function word, capitalised, is none either
    ("J. Smith-Jones", {"smith", "jones"}),  # one letter is no name word; hyphenated parts are two
    ("the city of london", set()),  # small letters: no name
    ("Room 12B", {"room"}),
    ("Monday 4 June 1997", set()),  # month and weekday names name no one (English capitalises them)
    ("Jan May", {"jan"}),  # full names only: the abbreviation "Jan" is a name too; "May" reads as the month
])
def test_name_words(text, words):
    assert name_words(text, "en") == words


def test_equal_values_and_name_words_of_other_entities():
    rows = frame([
        ("d1", "E1", "Anna Berg", "Karl Holm"),      # Karl Holm is E2's value: borrowed, in document and corpus
        ("d1", "E2", "Karl Holm", "Mr Dahl"),         # "Mr" (of "Mr Olof Lind") is a title: not borrowed
        ("d1", "E3", "Mr Olof Lind", "Eva Berg"),     # shares Berg with E1 of its document: a word borrowed
        ("d1", "E1", "Berg", "Berg"),                 # its own entity's word: a leak, not borrowed
        ("d2", "E9", "Oslo", "Karl Holm"),            # d1's value, another document: corpus only
        ("d2", "E8", "Lund", None, True),             # FAILED borrows nothing
        ("d2", "E7", "Gävle", ""),                    # suppressed borrows nothing
    ])
    values = span_values(rows)
    assert values["borrowed_value_document"].tolist() == [1, 0, 0, 0, 0, 0, 0]
    assert values["borrowed_document"].tolist() == [1, 0, 1, 0, 0, 0, 0]
    assert values["borrowed_value_corpus"].tolist() == [1, 0, 0, 0, 1, 0, 0]
    assert values["borrowed_corpus"].tolist() == [1, 0, 1, 0, 1, 0, 0]
    result = compute(rows)
    assert result.loc["r"].tolist() == pytest.approx([1 / 7, 2 / 7, 2 / 7, 3 / 7])


def test_a_shifted_date_borrows_by_its_value_not_by_its_month():
    # A date surrogate that shares only a month name with another date is no borrowed identity;
    # one equal to another date of the corpus still is (the value columns).
    rows = frame([("d1", "E1", "29 November 1996", "4 June 1997"), ("d1", "E2", "6 June 1995", "1 May 1994"),
                  ("d2", "E3", "1996", "1995"), ("d2", "E4", "1995", "1993")])
    values = span_values(rows)
    assert values["borrowed_document"].tolist() == [0, 0, 1, 0]
    assert values["borrowed_corpus"].tolist() == [0, 0, 1, 0]


def test_a_value_its_own_entity_has_elsewhere_is_no_borrowing():
    # "Oslo" for the second mention of Oslo (entity E1) equals E1's own value, even where
    # another entity (E2, another document) is also called Oslo; a case-only difference counts as equal.
    rows = frame([("d1", "E1", "Oslo", "Bergen"), ("d1", "E1", "Oslo", "OSLO"), ("d2", "E2", "Oslo", "Bergen")])
    assert span_values(rows)["borrowed_corpus"].tolist() == [0, 0, 0]


def test_runs_are_apart_and_spans_without_an_entity_id_are_their_own():
    rows = pd.concat([frame([("d1", None, "Anna", "Eva"), ("d1", None, "Eva", "Anna")], "a"),
                      frame([("d1", None, "Anna", "Eva")], "b")], ignore_index=True)
    result = compute(rows)
    assert result["borrowed_value_document"].to_dict() == {"a": 1.0, "b": 0.0}


def test_the_borrowed_shares_reach_table5_per_language(store, tmp_path, tiny_corpus):
    # Run A (tests/metrics/test_golden.py) in a report's beyond-003 table (the CSV keeps shares). A
    # report reads a mixed-language run per language: its English part's "corpus" is en-1 and en-2,
    # so "1980" (sv-1's date) borrows nothing there, and only "Jan Nowak" of 14 spans is left.
    from tests.metrics.conftest import RUN_A, add_run, make_context
    from workbench.reports import write_report
    run_id = add_run(store, tiny_corpus, RUN_A)
    write_report(store, [run_id], tmp_path / "r", formats=("csv",), context=make_context())
    table = pd.read_csv(tmp_path / "r" / "table5_beyond.csv", index_col="run_id")
    assert table.loc[f"{run_id}@en", ["borrowed_document", "borrowed_corpus"]].tolist() == \
        pytest.approx([1 / 14, 1 / 14])
    assert table.loc[f"{run_id}@sv", ["borrowed_document", "borrowed_corpus"]].tolist() == [0, 0]
