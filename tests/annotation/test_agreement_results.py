"""Kappa, confusion, Table 6 and Figure 2: hand-computed cases and properties."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.annotation import annotator_agreement, load_tagset, results

TAGS = list(load_tagset().names)


def test_cohen_kappa_by_hand():
    # 10 items, 7 agreements: p_o = 0.7; A: 5 POS 5 GRAMMAR, B: 6 POS 4 GRAMMAR
    # p_e = 0.5*0.6 + 0.5*0.4 = 0.5 → kappa = (0.7 - 0.5) / 0.5 = 0.4
    a = ["POS"] * 5 + ["GRAMMAR"] * 5
    b = ["POS"] * 4 + ["GRAMMAR"] + ["POS"] * 2 + ["GRAMMAR"] * 3
    assert sum(x == y for x, y in zip(a, b)) == 7
    assert annotator_agreement.cohen_kappa(a, b) == pytest.approx(0.4)
    assert annotator_agreement.cohen_kappa(a, a) == 1.0
    assert math.isnan(annotator_agreement.cohen_kappa(["POS"] * 4, ["POS"] * 4))  # chance agreement is already 1


@settings(max_examples=60, deadline=None, derandomize=True, database=None)  # the same examples every run
@given(st.lists(st.tuples(st.sampled_from(TAGS[:4]), st.sampled_from(TAGS[:4])), min_size=2, max_size=40))
def test_cohen_kappa_matches_scikit_learn(pairs):
    from sklearn.metrics import cohen_kappa_score
    a, b = [p[0] for p in pairs], [p[1] for p in pairs]
    ours = annotator_agreement.cohen_kappa(a, b)
    if math.isnan(ours):
        assert len(set(a) | set(b)) == 1
    else:
        assert ours == pytest.approx(cohen_kappa_score(a, b))
        assert -1 <= ours <= 1


def test_fleiss_kappa_wikipedia_example():
    # Fleiss (1971) worked example as on Wikipedia: 10 items, 14 raters, 5 categories → 0.210
    counts = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
              [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
    rows = [[TAGS[j] for j, c in enumerate(row) for _ in range(c)] for row in counts]
    assert annotator_agreement.fleiss_kappa(rows) == pytest.approx(0.2099, abs=1e-4)


def test_fleiss_equals_cohen_shape_for_two_and_needs_complete_items():
    wide = pd.DataFrame({"a": ["POS", "POS", "GRAMMAR", None], "b": ["POS", "GRAMMAR", "GRAMMAR", "POS"]})
    kappa, n = annotator_agreement.fleiss_of(wide)
    assert n == 3  # the item only b tagged is left out
    with pytest.raises(ValueError):
        annotator_agreement.fleiss_kappa([["POS", "POS"], ["POS"]])


def test_pairwise_and_confusion():
    wide = pd.DataFrame({"a": ["POS", "POS", "GRAMMAR", "OVERLAP"], "b": ["POS", "GRAMMAR", "GRAMMAR", None],
                         "c": ["POS", "POS", "GRAMMAR", "OVERLAP"]})
    pairs = {(p.a, p.b): p for p in annotator_agreement.pairwise(wide)}
    assert pairs[("a", "b")].n_items == 3 and pairs[("a", "b")].observed == pytest.approx(2 / 3)
    assert pairs[("a", "c")].kappa == 1.0
    table = annotator_agreement.confusion(wide, "a", "b", TAGS)
    assert list(table.index) == TAGS and list(table.columns) == TAGS
    assert table.loc["POS", "GRAMMAR"] == 1 and table.loc["GRAMMAR", "GRAMMAR"] == 1
    assert table.values.sum() == 3


def _items(rows):
    return pd.DataFrame(rows, columns=["run_id", "doc_id", "span_index", "annotator", "tag", "lang", "system"]).assign(
        note="", source="api")


def test_majority_ties_go_to_precedence_and_table6_by_hand():
    tagset = load_tagset()
    frame = _items([
        ("r1", "d", 0, "a", "SEM:CATEGORY", "en", "upos maskL + UPOS"),
        ("r1", "d", 0, "b", "POS", "en", "upos maskL + UPOS"),  # tie → POS (earlier in Appendix C)
        ("r1", "d", 1, "a", "NO_ERROR", "en", "upos maskL + UPOS"),
        ("r1", "d", 1, "b", "NO_ERROR", "en", "upos maskL + UPOS"),
        ("r1", "d", 2, "a", "GRAMMAR", "en", "upos maskL + UPOS"),
        ("r1", "d", 2, "b", "GRAMMAR", "en", "upos maskL + UPOS"),
        ("r1", "d", 3, "a", "NO_ERROR", "en", "upos maskL + UPOS"),
        ("r1", "d", 3, "b", "OVERLAP", "en", "upos maskL + UPOS"),  # tie → NO_ERROR
        ("r2", "e", 0, "a", "FAILED", "sv", "ollama maskL + UPOS"),
        ("r2", "e", 0, "b", "FAILED", "sv", "ollama maskL + UPOS"),
    ])
    items = results.item_tags(frame, tagset)
    assert dict(zip(zip(items["run_id"], items["span_index"]), items["tag"])) == {
        ("r1", 0): "POS", ("r1", 1): "NO_ERROR", ("r1", 2): "GRAMMAR", ("r1", 3): "NO_ERROR", ("r2", 0): "FAILED"}
    table = results.table6(items, tagset)
    assert list(table.index) == list(tagset.names)
    assert table[("English", "upos maskL + UPOS")].to_dict() == pytest.approx(
        {t: {"NO_ERROR": 0.5, "POS": 0.25, "GRAMMAR": 0.25}.get(t, 0.0) for t in tagset.names})
    assert table[("Swedish", "ollama maskL + UPOS")]["FAILED"] == 1.0
    b_only = results.table6(results.item_tags(frame, tagset, "b"), tagset)
    assert b_only[("English", "upos maskL + UPOS")]["OVERLAP"] == 0.25


def test_table6_and_figure2_files(annotated_store, tmp_path):
    from workbench.annotation import AnnotationStore
    store = AnnotationStore(annotated_store)
    frame = results.annotation_frame(store)
    items = results.item_tags(frame, store.tagset)
    table, counts = results.table6(items, store.tagset), results.table6_counts(items, store.tagset)
    assert table.sum(axis=0).round(9).eq(1).all()  # each column sums to 1
    assert set(table.columns.get_level_values("language")) == {"English", "Swedish"}
    assert int(counts.values.sum()) == len(items)
    paths = results.write_table6(table, counts, tmp_path, "caption")
    md = (tmp_path / "table6.md").read_text().splitlines()
    assert [line.split(" | ")[0] for line in md if line.startswith("| ")][1:] == \
        [f"| {t}" for t in store.tagset.names] + ["| n"]
    assert "\\begin{table}" in (tmp_path / "table6.tex").read_text()
    assert all(p.stat().st_size > 0 for p in paths)
    results.figure2(table, store.tagset, tmp_path / "figure2.png")
    assert (tmp_path / "figure2.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
