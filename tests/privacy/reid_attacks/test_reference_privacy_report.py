"""Privacy beside utility (issue 12 item 5): the report's privacy table and the privacy–utility figure
over reference runs of a tiny corpus, attacked for real by the retrieval attacker (BM25), and the
Pareto front rule on hand-made points."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from tests.metrics.conftest import WordListTagger, make_context
from tests.privacy import reid_helpers
from workbench.exchange.reference import reference_run
from workbench.reports import write_report
from workbench.reports.privacy import pareto_front, privacy_measures, shared_key

pytest.importorskip("bm25s")


@pytest.mark.parametrize("risk, utility, front", [
    # (TRIR, utility) per point -> on the front?   Lower risk and higher utility are better.
    ([0.2, 0.5, 1.0], [0.3, 0.6, 1.0], [True, True, True]),  # a trade-off curve: all on it
    ([0.2, 0.5, 0.4], [0.3, 0.6, 0.7], [True, False, True]),  # (0.5, 0.6) beaten by (0.4, 0.7)
    ([0.5, 0.5], [0.6, 0.6], [True, True]),  # identical points dominate neither
    ([0.5, 0.5], [0.6, 0.7], [False, True]),  # same risk, less utility: dominated
    ([0.1, float("nan"), 0.9], [0.2, 0.9, float("nan")], [True, False, False]),  # a missing value: never on it
])
def test_pareto_front(risk, utility, front):
    assert pareto_front(risk, utility).tolist() == front


@pytest.fixture
def attacked(store, tmp_path):
    """Reference runs over the re-identification test corpus, attacked by the retrieval attacker."""
    from workbench.privacy.reid_attacks.reid import reid_risk
    corpus = reid_helpers.corpus()
    runs = {kind: reference_run(store, corpus, kind, tagger=WordListTagger()).run_id
            for kind in ("original", "suppress", "label")}
    runs["numbered"] = reference_run(store, corpus, "label", numbered=True, tagger=WordListTagger()).run_id
    background = reid_helpers.background(tmp_path / "bk.json")
    stored = reid_risk(store, list(runs.values()), attacker="retrieval", background=background, k=2)
    return runs, stored.set_index("run_id")


def test_the_report_holds_the_privacy_table_and_the_figure(store, attacked, tmp_path):
    runs, stored = attacked
    out = tmp_path / "report"
    written = {p.name for p in write_report(store, list(runs.values()), out, context=make_context(), k=2)}
    assert {"table_privacy.md", "table_privacy.tex", "table_privacy.csv", "privacy_utility.csv",
            "privacy_utility.png"} <= written
    assert (out / "privacy_utility.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    table = pd.read_csv(out / "table_privacy.csv", index_col="run_id")
    assert sorted(table.index) == sorted(runs.values())  # one row per run, no Original pseudo-rows
    for run_id in runs.values():
        assert table.at[run_id, "trir_retrieval"] == pytest.approx(stored.at[run_id, "trir"])
        assert table.at[run_id, "rank_le_k_retrieval"] == pytest.approx(stored.at[run_id, "rank_le_k"])
        assert math.isnan(table.at[run_id, "trir_trained"])  # never attacked by the trained attacker
    assert table.at[runs["original"], "trir_retrieval"] == 1.0  # every original document re-identified
    assert table.at[runs["suppress"], "trir_retrieval"] < table.at[runs["original"], "trir_retrieval"]
    assert table.at[runs["original"], "overlap_absolute"] > 0 == table.at[runs["suppress"], "overlap_absolute"]

    markdown = (out / "table_privacy.md").read_text(encoding="utf-8")
    key = stored.at[runs["original"], "attack_key"]
    assert f"retrieval:{key}" in markdown and "k=2" in markdown and runs["suppress"][:8] in markdown
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "![Privacy against utility](privacy_utility.png)" in report and "TRIR" in report
    definitions = pd.read_csv(out / "metric_definitions.csv")
    assert {"trir_retrieval", "rank_le_k_trained", "disclosure_mlm"} <= set(definitions["metric"])


def test_the_figures_points_and_front_follow_the_stored_results(store, attacked, tmp_path):
    runs, stored = attacked
    out = tmp_path / "report"
    write_report(store, list(runs.values()), out, formats=("csv",), context=make_context(), k=2)
    points = pd.read_csv(out / "privacy_utility.csv").set_index("run_id")
    assert sorted(points.index) == sorted(runs.values()) and set(points["attacker"]) == {"strongest (retrieval)"}
    assert not (out / "privacy_utility.png").exists()  # png not asked for
    metrics = pd.read_csv(out / "metrics.csv", index_col="run_id")
    for utility in ("tps", "similarity_word"):
        assert points[utility].to_dict() == pytest.approx(metrics.loc[points.index, utility].to_dict())
        # The front, recomputed by brute force: no other run at most as risky and at least as useful.
        for run_id, p in points.iterrows():
            beaten = any((q["trir"] <= p["trir"] and q[utility] >= p[utility]) and
                         (q["trir"] < p["trir"] or q[utility] > p[utility])
                         for other, q in points.iterrows() if other != run_id)
            assert bool(p[f"front_{utility}"]) == (not beaten)
    # Nothing beats the original's utility, and suppression is the safest: both on every front.
    assert points.loc[runs["original"], "front_tps"] and points.loc[runs["original"], "front_similarity_word"]
    assert points.loc[runs["original"], "tps"] == 1.0 and points.loc[runs["suppress"], "similarity_word"] == 0.0


def test_without_stored_results_the_table_says_how_to_get_them_and_no_figure_is_drawn(store, tmp_path):
    corpus = reid_helpers.corpus()
    run = reference_run(store, corpus, "suppress", tagger=WordListTagger()).run_id
    written = {p.name for p in write_report(store, [run], tmp_path / "r", context=make_context())}
    assert "table_privacy.csv" in written and "privacy_utility.png" not in written
    table = pd.read_csv(tmp_path / "r" / "table_privacy.csv")
    assert table["trir_retrieval"].isna().all() and table["overlap_partial"].tolist() == [0.0]
    assert "workbench privacy reid" in (tmp_path / "r" / "table_privacy.md").read_text(encoding="utf-8")
    assert "No privacy–utility figure" in (tmp_path / "r" / "report.md").read_text(encoding="utf-8")


def test_the_attack_most_runs_share_is_the_one_shown(store, attacked):
    """Results written straight into reid_results under a second key (another background, say)
    for one run only: the table keeps to the key every run has."""
    from workbench.privacy.reid_attacks.reid_store import new_row, rows_frame, save_rows
    runs, stored = attacked
    key = stored.at[runs["original"], "attack_key"]
    mine = rows_frame(store, [runs["label"]], key)
    save_rows(store, [new_row(runs["label"], "retrieval-other", r.doc_id, "retrieval", {}, "other.json@0",
                              "0" * 64, r.text_sha256, r.individual, 0, 0, r.n_candidates, r.individual)
                      for r in mine.itertuples()])
    measures = privacy_measures(store, list(runs.values()), k=2)
    assert measures.attrs["attack_keys"] == {"retrieval": key}
    assert measures.at[runs["label"], "trir_retrieval"] == pytest.approx(stored.at[runs["label"], "trir"])
    frame = pd.DataFrame({"attacker": ["retrieval"] * 3, "attack_key": ["b", "a", "b"]})
    assert shared_key(frame, "retrieval") == "b" and shared_key(frame, "trained") is None
    tie = pd.DataFrame({"attacker": ["retrieval"] * 2, "attack_key": ["b", "a"]})
    assert shared_key(tie, "retrieval") == "a"  # a tie goes to the first key in sorted order
    assert np.isnan(measures.to_numpy(dtype=float)[:, list(measures.columns).index("trir_trained")]).all()


def test_inference_disclosure_reaches_the_table(store, attacked, tmp_path):
    """Per-span results written into inference_results (P3's store functions) for two runs: the
    original's every replacement discloses its span, the suppressed run's none; the table shows
    each run's rate, and an attack that has not reached every span shows its rate with what it
    covers (issue 42: a partial attack read "–" although `privacy infer` had just printed its rate)."""
    pytest.importorskip("workbench.privacy.inference_attacks.inference")
    from workbench.privacy.inference_attacks.inference_store import new_row, save_rows
    runs, _ = attacked
    corpus = reid_helpers.corpus()
    for kind, disclosed in (("original", True), ("suppress", False), ("label", False)):
        rows = [new_row(runs[kind], "mlm-test-n5-00000000", d.doc_id, i, "mlm", {"n": 5}, "0" * 64,
                        ("a", "b"), (0, "exact") if disclosed else None, "exact" if disclosed else None, "", 0, 0.0)
                for d in corpus.documents for i in d.masked_spans]
        save_rows(store, rows if kind != "label" else rows[:-1])  # label: one span not attacked yet
    measures = privacy_measures(store, list(runs.values()), k=2)
    assert measures.attrs["attack_keys"]["mlm"] == "mlm-test-n5-00000000"
    assert measures.at[runs["original"], "disclosure_mlm"] == 1.0
    assert measures.at[runs["suppress"], "disclosure_mlm"] == 0.0
    spans = sum(len(d.masked_spans) for d in corpus.documents)
    assert measures.at[runs["label"], "disclosure_mlm"] == 0.0  # over the spans attacked so far
    assert measures.at[runs["label"], "disclosure_mlm_coverage"] == f"{spans - 1} of {spans} spans"
    assert pd.isna(measures.at[runs["original"], "disclosure_mlm_coverage"])  # complete: nothing to say
    assert math.isnan(measures.at[runs["numbered"], "disclosure_mlm"])  # never attacked
    write_report(store, list(runs.values()), tmp_path / "r", formats=("csv", "md"), context=make_context(), k=2)
    table = pd.read_csv(tmp_path / "r" / "table_privacy.csv", index_col="run_id")
    assert table.at[runs["original"], "disclosure_mlm"] == 1.0 and table.at[runs["suppress"], "disclosure_mlm"] == 0
    # with its interval (issue 40): every span of the original disclosed, none of the others, so
    # every resample of the documents reads the same
    assert table.at[runs["original"], "disclosure_mlm_low"] == table.at[runs["original"], "disclosure_mlm_high"] == 1
    assert table.at[runs["label"], "disclosure_mlm_low"] == table.at[runs["label"], "disclosure_mlm_high"] == 0
    markdown = (tmp_path / "r" / "table_privacy.md").read_text(encoding="utf-8")
    assert f"0.000 [0.000, 0.000] ({spans - 1} of {spans} spans)" in markdown


def test_near_identical_points_share_one_label_in_the_figure():
    from workbench.reports.privacy import label_clusters
    xs, ys = [0.55, 0.551, 0.56, 0.72, 0.55], [0.86, 0.85, 0.16, 1.0, 0.0]
    # Within 3 % of both axes of the highest point of a group: 0 and 1 together; the rest alone.
    assert label_clusters(xs, ys, low=-0.03) == [[3], [0, 1], [2], [4]]


def test_trir_has_its_document_bootstrap_interval_in_the_table(store, attacked, tmp_path):
    """Issue 40: TRIR is a mean over documents, so the privacy table gives its 95 % interval as the
    utility tables do: in brackets in Markdown, as _low/_high columns in the CSV. On this corpus
    every original document is re-identified and no suppressed one: each resample reads the same."""
    runs, _ = attacked
    out = tmp_path / "report"
    write_report(store, list(runs.values()), out, formats=("md", "csv"), context=make_context(), k=2)
    table = pd.read_csv(out / "table_privacy.csv", index_col="run_id")
    assert table.at[runs["original"], "trir_retrieval_low"] == table.at[runs["original"], "trir_retrieval_high"] == 1.0
    assert table.at[runs["suppress"], "trir_retrieval_low"] == table.at[runs["suppress"], "trir_retrieval_high"] == 0.0
    assert "1.000 [1.000, 1.000]" in (out / "table_privacy.md").read_text(encoding="utf-8")


def test_the_trir_interval_resamples_the_documents():
    from workbench.privacy.reid_attacks import reid
    from workbench.uncertainty.bootstrap import document_interval
    hit, miss = ("p1", 0, 0), ("p9", 3, 0)  # (true individual, candidates ranked above it, tied with it)
    rows = pd.DataFrame([{"run_id": "r", "attack_key": "key", "attacker": "retrieval", "doc_id": f"d{n}",
                          "individual": who, "n_higher": higher, "n_tied": tied, "n_candidates": 10,
                          "background": "bk.json", "config": "{}"}
                         for n, (who, higher, tied) in enumerate([hit, hit, miss, miss, hit, miss])])
    (row,) = reid._metrics(rows, 2, {"r": 6}).to_dict("records")
    expected = document_interval(np.array([1, 1, 0, 0, 1, 0], dtype=float))
    assert row["trir"] == 0.5 and (row["trir_low"], row["trir_high"]) == (expected.low, expected.high)
    assert 0 < row["trir_low"] < 0.5 < row["trir_high"] < 1


def test_an_attacker_below_the_ceiling_on_the_original_text_is_flagged_weak(store, attacked, tmp_path):
    """Issue 39 item 5: the original text is the easiest case; an attacker that re-identifies less
    than 0.9 of it is named weak in the privacy table's caption. A deliberately weak attacker: the
    background texts of two individuals swapped, so their documents point at each other."""
    from workbench.privacy.reid_attacks.reid import reid_risk
    runs, _ = attacked
    strong = tmp_path / "strong"
    write_report(store, [runs["original"], runs["suppress"]], strong, formats=("md",), context=make_context(), k=2)
    assert "WEAK" not in (strong / "table_privacy.md").read_text(encoding="utf-8")  # it reads 1.0 of the original

    people = dict(reid_helpers.PEOPLE)
    people["doc-a"], people["doc-b"] = people["doc-b"], people["doc-a"]
    swapped = reid_helpers.background(tmp_path / "swapped.json", people=people)
    from workbench.store import RunStore
    with RunStore(tmp_path / "weak.sqlite") as other:  # a store of its own: one attack key per run
        fresh = {kind: reference_run(other, reid_helpers.corpus(), kind, tagger=WordListTagger()).run_id
                 for kind in ("original", "suppress")}
        weak = reid_risk(other, list(fresh.values()), attacker="retrieval", background=swapped, k=2)
        assert weak.set_index("run_id").at[fresh["original"], "trir"] == pytest.approx(0.6)  # 3 of 5 documents
        out = tmp_path / "weak"
        write_report(other, list(fresh.values()), out, formats=("md",), context=make_context(), k=2)
    table = (out / "table_privacy.md").read_text(encoding="utf-8")
    assert "WEAK attacker(s), below 0.9 on the original text" in table
    assert "retrieval (original text of reid-tiny: TRIR 0.600)" in table
