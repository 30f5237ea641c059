"""The known-pair attack (workbench.privacy.known_pair) on hand-made documents, values counted by hand."""

from __future__ import annotations

import pandas as pd
import pytest

from workbench.privacy.known_pair import known_pair_counts, shares

DATES = ["3 August 2003", "10 August 2003", "2003-08-20"]


def frame(*spans, run_id="r", doc_id="d"):
    """Rows of the tidy frame: (label, entity, original, pseudonym[, failed])."""
    rows = [(run_id, doc_id, label, f"{doc_id}|{entity}", original, pseudonym, bool(rest and rest[0]))
            for label, entity, original, pseudonym, *rest in spans]
    return pd.DataFrame(rows, columns=["run_id", "doc_id", "label", "entity_id", "original", "pseudonym", "failed"])


def share_of(counts, kind):
    return shares(counts, "kind")[kind]


def test_one_shift_per_document_gives_every_other_date_away():
    # +12 days each, in each date's own format: every known date recovers the two others (6 of 6).
    counts = known_pair_counts(frame(*[("DATETIME", f"E{i}", o, p) for i, (o, p) in enumerate(
        zip(DATES, ["15 August 2003", "22 August 2003", "2003-09-01"]))]))
    assert counts[["attempts", "recovered"]].sum().tolist() == [6, 6]


def test_a_shift_per_date_gives_none_away():
    # +12, +20 and -5 days: no known offset fits another date (0 of 6).
    counts = known_pair_counts(frame(*[("DATETIME", f"E{i}", o, p) for i, (o, p) in enumerate(
        zip(DATES, ["15 August 2003", "30 August 2003", "2003-08-15"]))]))
    assert counts[["attempts", "recovered"]].sum().tolist() == [6, 0]


def test_a_date_without_its_year_is_recovered_by_day_and_month():
    counts = known_pair_counts(frame(("DATETIME", "E1", "3 August 2003", "15 August 2003"),
                                     ("DATETIME", "E2", "the 30th of December", "11 January")))
    # Known full date (+12): the year-less one is recovered by day and month. Known year-less date: both
    # sides read in one leap year, so its shift across the year end reads as -354 days and misses.
    assert counts[["attempts", "recovered"]].sum().tolist() == [2, 1]


def test_a_consistent_name_map_gives_the_entitys_mentions_away():
    counts = known_pair_counts(frame(("PERSON", "E1", "Anna Berg", "Kathy Holloway"),
                                     ("PERSON", "E1", "Mr Berg", "Mr Holloway"),
                                     ("PERSON", "E1", "anna  berg", "Kathy Holloway"),
                                     ("PERSON", "E2", "John Smith", "Tom Green")))
    # Known "Anna Berg" (either): the other (same pseudonym) and "Mr Berg" (Holloway -> Berg): 2 + 2 of 4.
    # Known "Mr Berg": maps only Holloway -> Berg, so "Kathy Holloway" reads "Kathy Berg": 0 of 2.
    # Known "John Smith": no other mention, nothing reached ("Mr" is kept, so it maps nothing).
    assert counts[["attempts", "recovered"]].sum().tolist() == [6, 4]
    assert shares(counts, "label")["PERSON"] == pytest.approx(4 / 6)


def test_inconsistent_random_names_give_nothing_away():
    counts = known_pair_counts(frame(("PERSON", "E1", "Anna Berg", "house"), ("PERSON", "E1", "Anna Berg", "tree"),
                                     ("PERSON", "E1", "Berg", "river")))
    assert counts[["attempts", "recovered"]].sum().tolist() == [6, 0]


def test_a_pseudonym_shared_by_many_originals_pays_for_its_wrong_guesses():
    # Suppression: known A reaches the other A (right) and B (wrong); known B reaches both A (wrong): 2 of 6.
    counts = known_pair_counts(frame(("PERSON", "A", "Anna Berg", ""), ("PERSON", "A", "Anna Berg", ""),
                                     ("PERSON", "B", "John Smith", "")))
    assert counts[["attempts", "recovered"]].sum().tolist() == [6, 2]


def test_failed_spans_teach_nothing_and_dates_and_names_are_counted_apart():
    counts = known_pair_counts(frame(("DATETIME", "E1", DATES[0], "15 August 2003"),
                                     ("DATETIME", "E2", DATES[1], "[FAILED]", True),
                                     ("PERSON", "E3", "Anna Berg", "[FAILED]", True),
                                     ("PERSON", "E3", "Anna Berg", "Kathy Holloway")))
    # Known date: the FAILED date is attempted, not recovered (0 of 1). Known "Kathy Holloway": the FAILED
    # mention of its entity (0 of 1). The FAILED spans are never the known pair.
    assert share_of(counts, "date") == 0 and share_of(counts, "other") == 0
    assert counts["attempts"].sum() == 2


def test_documents_and_runs_are_attacked_apart():
    both = pd.concat([frame(("PERSON", "E1", "Anna Berg", "Kathy Holloway"), doc_id="d1"),
                      frame(("PERSON", "E1", "Anna Berg", "Kathy Holloway"), doc_id="d2"),
                      frame(("PERSON", "E1", "Anna Berg", "X"), ("PERSON", "E1", "Anna Berg", "X"), run_id="s")])
    counts = known_pair_counts(both).set_index("run_id")
    assert "r" not in counts.index  # one mention per document: nothing to recover, no attempt
    assert counts.loc["s", ["attempts", "recovered"]].tolist() == [2, 2]


def test_a_date_without_its_year_moved_across_the_year_end_is_read_back_in_its_year():
    # -327 days: 1 June 2001 -> 9 July 2000, and 4 May (read in 2000) -> 12 June 1999, written "12 June".
    # Moved back in 2000, "12 June" would give 5 May (the leap day between); read in 1999 it gives 4 May.
    counts = known_pair_counts(frame(("DATETIME", "E1", "1 June 2001", "9 July 2000"),
                                     ("DATETIME", "E2", "4 May", "12 June")))
    known_full = counts[["attempts", "recovered"]].sum().tolist()
    assert known_full == [2, 1]  # the year-less pair reads as +39 days, so it misdates the full date


def test_the_share_in_scope_leaves_out_the_spans_only_the_map_reached():
    # Suppression as above: in scope are A1<->A2 (both right); B has no other mention and names no date.
    counts = known_pair_counts(frame(("PERSON", "A", "Anna Berg", ""), ("PERSON", "A", "Anna Berg", ""),
                                     ("PERSON", "B", "John Smith", "")))
    assert counts[["in_scope", "in_scope_recovered"]].sum().tolist() == [2, 2]


def test_with_background_knowledge_only_the_pairs_its_text_states_are_known():
    spans = [("DATETIME", f"E{i}", o, p) for i, (o, p) in enumerate(
        zip(DATES, ["15 August 2003", "22 August 2003", "2003-09-01"]))]
    both = pd.concat([frame(*spans, doc_id="d1"), frame(*spans, doc_id="d2")])
    # d1's public text states "10 August 2003" alone (case and punctuation aside): one known pair, two others.
    counts = known_pair_counts(both, {"d1": "The hearing of 10 august, 2003 was public.", "other": "3 August 2003"})
    assert counts[["attempts", "recovered"]].sum().tolist() == [2, 2]  # d2 has no text: no known pair
    assert known_pair_counts(both, {"d1": "Nothing of the kind, 2003."}).empty
