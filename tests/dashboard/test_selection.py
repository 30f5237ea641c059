"""The Runs page's selection drives Metrics and Compare; what was not computed says how to
compute it; generator colours and run labels as the reports show them (issue 24 item 14).

Pages are switched inside one AppTest (Home.py is the app's main script), so session_state
and Streamlit's clean-up of widget state between pages are those of a real session."""

from __future__ import annotations

import json
from contextlib import closing

import pytest
from dashboard_helpers import PAGES, ok
from streamlit.testing.v1 import AppTest

from workbench.store import RunStore


@pytest.fixture(scope="module")
def runs(baseline_store):
    with closing(RunStore(baseline_store)) as s:
        return s.runs()


def session(store) -> AppTest:
    at = AppTest.from_file(str(PAGES / "Home.py"), default_timeout=300)
    at.session_state["store_path"] = str(store)
    return ok(at.run())


def test_the_runs_page_selection_is_what_metrics_and_compare_show(baseline_store, runs):
    at = session(baseline_store)
    ok(at.switch_page("pages/1_Runs.py").run())
    at.multiselect(key="runs_f_corpus").select("pgv-pii-sv").run()
    at.button(key="runs_all").click().run()
    chosen = [r.run_id for r in runs if r.corpus_name == "pgv-pii-sv"]
    assert ok(at).session_state["selected_runs"] == chosen
    ok(at.switch_page("pages/2_Metrics.py").run())
    assert at.sidebar.multiselect(key="met_runs").value == chosen
    table2 = at.dataframe[0].value
    assert set(table2["Corpus"]) == {"pgv-pii-sv"} and set(table2["Id"]) >= {r[:8] for r in chosen}
    # A change on Metrics is a change of the one selection: Compare and Runs follow it.
    at.sidebar.multiselect(key="met_runs").unselect(chosen[1]).run()
    assert ok(at).session_state["selected_runs"] == chosen[:1]
    ok(at.switch_page("pages/3_Compare.py").run())
    assert at.sidebar.multiselect(key="cmp_runs").value == chosen[:1]
    assert at.sidebar.selectbox(key="cmp_corpus").options == ["pgv-pii-sv"]
    ok(at.switch_page("pages/1_Runs.py").run())
    assert at.multiselect(key="runs_pick").value == chosen[:1]


@pytest.mark.parametrize("name", ["pages/2_Metrics.py", "pages/3_Compare.py"])
def test_without_a_selection_a_page_says_where_to_select_and_shows_no_runs(baseline_store, name):
    at = session(baseline_store)
    ok(at.switch_page(name).run())
    assert any("select the runs to work on on the **runs** page" in i.value.lower() for i in at.info)
    assert not at.dataframe and not at.get("image")  # never a silent default set of runs


def test_compare_takes_one_corpus_of_the_selection_at_a_time(baseline_store, runs):
    at = session(baseline_store)
    en = [r.run_id for r in runs if r.corpus_name == "pgv-pii-en"]
    sv = [r.run_id for r in runs if r.corpus_name == "pgv-pii-sv"]
    at.session_state["selected_runs"] = [en[0], sv[0], sv[1]]
    ok(at.switch_page("pages/3_Compare.py").run())
    assert at.sidebar.selectbox(key="cmp_corpus").options == ["pgv-pii-en", "pgv-pii-sv"]
    assert at.sidebar.multiselect(key="cmp_runs").value == [en[0]]
    assert any("2 selected runs on other corpora" in c.value for c in at.caption)
    at.sidebar.selectbox(key="cmp_corpus").select("pgv-pii-sv").run()
    assert ok(at).sidebar.multiselect(key="cmp_runs").value == [sv[0], sv[1]]


def test_a_measure_not_computed_says_how_to_compute_it(baseline_store, runs):
    at = session(baseline_store)
    chosen = [r.run_id for r in runs if r.corpus_name == "pgv-pii-en"]
    at.session_state["selected_runs"] = chosen
    ok(at.switch_page("pages/2_Metrics.py").run())
    notes = [i.value for i in at.info]
    # No attack stored: the privacy table says so instead of columns of "–"; PGV-PII ships no background
    # knowledge, so no `privacy reid` command (it would fail) but what the attack needs (issue 42).
    # Every re-identification attacker needs the same, so one line says it for all of them.
    reid = next(n for n in notes if n.startswith("TRIR (retrieval), rank ≤ k (retrieval), TRIR (trained)"))
    assert "not computed — pgv-pii-en ships no background knowledge" in reid and "workbench privacy reid" not in reid
    assert any(n.startswith("inference disclosure (MLM): not computed") and "workbench privacy infer" in n
               for n in notes)
    # A family the sidebar left out: where to tick it, and its columns are not shown.
    assert any("not computed — tick `rouge` under Metric families" in n for n in notes)
    # The privacy tab's table: the last with the PII overlap columns (Table 3 has them too).
    privacy = [d.value for d in at.dataframe if any(c.startswith("PII overlap %") for c in d.value.columns)][-1]
    assert "Run" in privacy.columns and not any("TRIR" in c or "rank" in c for c in privacy.columns)


def test_the_dashboard_uses_the_report_colours_and_does_not_cut_run_labels(baseline_store, runs):
    from workbench.reports.palette import generator_colour
    at = session(baseline_store)
    at.session_state["selected_runs"] = [r.run_id for r in runs]
    ok(at.switch_page("pages/2_Metrics.py").run())
    chart = json.loads(at.get("vega_lite_chart")[0].proto.spec)
    scale = chart["encoding"]["color"]["scale"]
    colours = dict(zip(scale["domain"], scale["range"]))
    assert {g: colours[g] for g in ("random", "upos")} == {g: generator_colour(g) for g in ("random", "upos")}
    assert chart["encoding"]["y"]["axis"]["labelLimit"] == 0  # run labels are never cut
    # The tables' Run column is as wide as its longest name (about 7.5 px a character) and pinned.
    table2 = at.dataframe[0]
    config = json.loads(table2.proto.columns)
    longest = max(len(n) for n in table2.value["Run"])
    run_column = next(v for k, v in config.items() if "Run" in k)
    assert run_column["width"] >= 7.5 * longest and run_column.get("pinned") is True
