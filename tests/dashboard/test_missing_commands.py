"""The dashboard suggests only commands that work for the selected corpus (issue 42): a
re-identification attack only for runs of a corpus that ships background knowledge."""

from __future__ import annotations

import math

import pandas as pd

from workbench.dashboard.missing import no_trir_note, privacy_note


def table(*rows) -> pd.DataFrame:
    """Runs (run id, corpus, TRIR) after an Original row, as the report's table holds them."""
    original = dict(corpus="tab-test", lang="en", generator="original", source="original", stored_run=None,
                    trir_retrieval=math.nan, disclosure_mlm=math.nan)
    runs = [dict(corpus=c, lang="en", generator="random", source="generated", stored_run=r, trir_retrieval=t,
                 disclosure_mlm=math.nan) for r, c, t in rows]
    return pd.DataFrame([original, *runs], index=["original:tab-test", *(r for r, _, _ in rows)])


def test_a_corpus_without_background_gets_no_reid_command():
    note = privacy_note(table(("a1", "tab-test:16docs", math.nan), ("b1", "pgv-pii-sv", math.nan),
                              ("b2", "pgv-pii-en", math.nan)), "trir_retrieval")
    assert note.startswith("TRIR (retrieval): not computed — run `workbench privacy reid a1 --attacker retrieval`")
    assert "pgv-pii-sv, pgv-pii-en ship no background knowledge to attack with (`--background FILE`" in note
    assert "b1" not in note and "b2" not in note
    only = privacy_note(table(("b1", "pgv-pii-sv", math.nan)), "trir_retrieval")
    assert "workbench privacy reid" not in only and "pgv-pii-sv ships no background knowledge" in only
    assert no_trir_note(table(("b1", "pgv-pii-sv", math.nan))).startswith(
        "No selected run has a stored TRIR: pgv-pii-sv ships no background knowledge")
    # A stored TRIR: nothing to suggest for that run.
    assert privacy_note(table(("a1", "tab-test", 0.5), ("a2", "tab-test", math.nan)), "trir_retrieval") == \
        "TRIR (retrieval): not computed for 1 of 2 runs — run `workbench privacy reid a2 --attacker retrieval`"


def test_the_inference_attack_is_suggested_for_every_corpus():
    note = privacy_note(table(("b1", "pgv-pii-sv", math.nan)), "disclosure_mlm")
    assert "`workbench privacy infer b1 --attacker mlm`" in note
