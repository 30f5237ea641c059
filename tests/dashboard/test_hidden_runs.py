"""Hiding runs on the dashboard's Runs page: stored in the run store (so it persists), left out of the
Runs table unless asked and out of the Metrics and Compare pickers (issue 15 item 6)."""

from __future__ import annotations

import pytest
from dashboard_helpers import PAGES, ok, page
from streamlit.testing.v1 import AppTest

from tests.helpers.store import generated_run
from workbench.store import RunStore
from workbench.store.hidden_runs import hidden_runs


@pytest.fixture
def two_runs(tmp_path, tiny_corpus):
    path = tmp_path / "runs.sqlite"
    with RunStore(path) as s:
        runs = [generated_run(s, tiny_corpus, seed=1).run_id, generated_run(s, tiny_corpus, seed=2).run_id]
    return path, runs


def offered(widget) -> list[str]:
    """The run ids a picker offers (its options are shown as labels that start with the id's first 8)."""
    return [o.split(" · ")[0] for o in widget.options]


def test_a_hidden_run_leaves_the_runs_table_and_the_pickers_and_comes_back(two_runs):
    path, (kept, hidden) = two_runs
    at = ok(page("pages/1_Runs.py", path, selected=[hidden]))
    assert set(at.dataframe[0].value["run_id"]) == {kept, hidden}
    at.button(key="runs_hide").click().run()
    ok(at)
    with RunStore(path) as s:
        assert hidden_runs(s) == {hidden}  # stored, not only this session's state
    assert list(at.dataframe[0].value["run_id"]) == [kept]
    assert at.multiselect(key="runs_pick").value == []

    # another session (a restart, another annotator) sees it hidden; the pickers leave it out
    assert list(ok(page("pages/1_Runs.py", path)).dataframe[0].value["run_id"]) == [kept]
    metrics = AppTest.from_file(str(PAGES / "pages/2_Metrics.py"), default_timeout=120)
    metrics.session_state["store_path"] = str(path)
    metrics.session_state["selected_runs"] = [hidden, kept]
    metrics.session_state["met_families"] = []  # only the pickers are under test: compute nothing
    ok(metrics.run())
    assert offered(metrics.sidebar.multiselect(key="met_runs")) == [kept[:8]]
    assert metrics.sidebar.multiselect(key="met_runs").value == [kept]
    compare = ok(page("pages/3_Compare.py", path, selected=[hidden, kept]))
    assert offered(compare.sidebar.multiselect(key="cmp_runs")) == [kept[:8]]
    assert compare.sidebar.multiselect(key="cmp_runs").value == [kept]
    # A selection of hidden runs only is no selection: a note, no runs (never a default set).
    alone = ok(page("pages/3_Compare.py", path, selected=[hidden]))
    assert not alone.sidebar.multiselect and any("Runs" in i.value for i in alone.info)

    # shown again on request, marked, and unhidden
    again = page("pages/1_Runs.py", path)
    again.checkbox(key="runs_show_hidden").check().run()
    table = ok(again).dataframe[0].value
    assert dict(zip(table["run_id"], table["hidden"])) == {kept: False, hidden: True}
    again.multiselect(key="runs_pick").select(hidden).run()
    again.button(key="runs_unhide").click().run()
    ok(again)
    with RunStore(path) as s:
        assert hidden_runs(s) == set()
    assert offered(page("pages/3_Compare.py", path, selected=[kept]).sidebar.multiselect(key="cmp_runs")) == [
        kept[:8], hidden[:8]]


def test_when_every_run_is_hidden_the_pickers_say_where_to_unhide(two_runs):
    path, runs = two_runs
    at = page("pages/1_Runs.py", path, selected=runs)
    at.button(key="runs_hide").click().run()
    compare = page("pages/3_Compare.py", path)
    assert not compare.exception and any("Every run is hidden" in w.value for w in compare.warning)
