"""The judge in agreement and Table 6: its kappa against every person, the people's own figures
without it (golden values worked out by hand in the comments)."""

from __future__ import annotations

import pandas as pd
import pytest

from workbench.annotation import annotator_agreement, results
from workbench.annotation.tagset import load_tagset
from workbench.infra.errors import WorkbenchError

A, B = "NO_ERROR", "POS"


def long_frame(tags: dict[str, list[str]]) -> pd.DataFrame:
    rows = [{"run_id": "r", "doc_id": "d", "span_index": i, "annotator": name, "tag": tag, "note": "",
             "source": "api", "lang": "en", "system": "random maskL"}
            for name, column in tags.items() for i, tag in enumerate(column)]
    return pd.DataFrame(rows)


def test_the_judge_is_measured_against_each_person_and_left_out_of_their_figures():
    frame = long_frame({"anna": [A, A, B, B], "bo": [A, B, B, B], "judge:m": [A, A, A, B]})
    summary = annotator_agreement.summarise(frame)
    # anna × bo: observed 3/4, p_e = (2·1 + 2·3)/16 = 1/2, kappa = (3/4 - 1/2)/(1/2) = 1/2
    assert [(p.a, p.b, p.n_items) for p in summary.pairs] == [("anna", "bo", 4)]
    assert summary.pairs[0].kappa == pytest.approx(0.5)
    # Fleiss over anna and bo only: P̄ = 3/4, p_e = (3/8)² + (5/8)² = 34/64, kappa = (3/4 - 34/64)/(30/64) = 7/15
    assert summary.fleiss == pytest.approx(7 / 15) and summary.n_annotators == 2 and summary.n_complete == 4
    # judge × anna: observed 3/4, p_e = (3·2 + 1·2)/16 = 1/2 → 1/2; judge × bo: observed 1/2,
    # p_e = (3·1 + 1·3)/16 = 3/8 → (1/2 - 3/8)/(5/8) = 1/5
    assert [(p.a, p.b) for p in summary.judges] == [("judge:m", "anna"), ("judge:m", "bo")]
    assert [p.kappa for p in summary.judges] == pytest.approx([0.5, 0.2])
    assert [p.observed for p in summary.judges] == pytest.approx([0.75, 0.5])


def test_two_judges_are_also_compared_with_each_other():
    frame = long_frame({"anna": [A, B], "judge:x": [A, B], "judge:y": [B, B]})
    pairs = annotator_agreement.summarise(frame).judges
    assert [(p.a, p.b) for p in pairs] == [("judge:x", "anna"), ("judge:x", "judge:y"), ("judge:y", "anna")]


def test_the_majority_of_table_6_is_the_peoples():
    # Item 0: anna POS, the judge NO_ERROR. With the judge voting it would be a tie that precedence
    # gives to NO_ERROR; the people's majority is POS.
    frame = long_frame({"anna": [B, A], "judge:m": [A, A]})
    tagset = load_tagset()
    assert results.item_tags(frame, tagset)["tag"].tolist() == [B, A]
    assert results.item_tags(frame, tagset, "judge:m")["tag"].tolist() == [A, A]
    with pytest.raises(WorkbenchError, match="only LLM judges tagged"):
        results.item_tags(long_frame({"judge:m": [A]}), tagset)
