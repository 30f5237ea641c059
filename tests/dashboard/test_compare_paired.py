"""The Compare page's paired test (issue 40): two of the chosen runs metric by metric, through
workbench compare's library function (workbench.metrics.compare_runs), in the real Streamlit app
under streamlit.testing.v1.AppTest."""

from __future__ import annotations

from contextlib import closing

from dashboard_helpers import PAGES, ok
from streamlit.testing.v1 import AppTest

from workbench.metrics.compare_runs import compare_runs, comparison_cells
from workbench.store import RunStore

METRICS = ["overlap_partial", "unique_ratio"]  # a span-level and a document-level metric, no model needed


def test_the_paired_test_shows_compares_intervals_and_p_values(baseline_copy):
    with closing(RunStore(baseline_copy, create=False)) as store:
        chosen = [r.run_id for r in store.runs() if r.corpus_name == "pgv-pii-en"]
        assert len(chosen) == 2
        expected = comparison_cells(compare_runs(store, chosen[0], chosen[1], metrics=METRICS))
        swapped = comparison_cells(compare_runs(store, chosen[1], chosen[0], metrics=METRICS))
    at = AppTest.from_file(str(PAGES / "pages/3_Compare.py"), default_timeout=120)
    at.session_state["store_path"] = str(baseline_copy)
    at.session_state["selected_runs"] = chosen
    at.session_state["cmp_test_metrics"] = METRICS
    ok(at.run())
    tables = len(at.dataframe)
    assert not [s for s in at.selectbox if s.key == "cmp_test_a"]  # the toggle is off: nothing computed
    at.toggle(key="cmp_test").set_value(True).run()
    ok(at)
    assert (at.selectbox(key="cmp_test_a").value, at.selectbox(key="cmp_test_b").value) == tuple(chosen)
    assert len(at.dataframe) == tables + 1
    shown = at.dataframe[-1].value.reset_index(drop=True)
    assert shown.astype(str).equals(expected.astype(str))
    # each run's figure with its interval, the difference with its paired one, both p-values
    overlap = shown[shown["metric"] == "overlap_partial"].iloc[0]
    assert overlap["A"].count("[") == overlap["B"].count("[") == overlap["A − B"].count("[") == 1
    assert 0 < float(overlap["p bootstrap"]) <= 1 and 0 < float(overlap["p randomisation"]) <= 1
    assert f"workbench compare {chosen[0][:8]} {chosen[1][:8]} --metric overlap_partial" in " ".join(
        c.value for c in at.caption)
    # the other run as A: the page's table is compare's for that order
    at.selectbox(key="cmp_test_a").set_value(chosen[1]).run()
    ok(at)
    assert at.selectbox(key="cmp_test_b").value == chosen[0]
    assert at.dataframe[-1].value.reset_index(drop=True).astype(str).equals(swapped.astype(str))
