"""The dashboard's Metrics page shows the report's privacy table and privacy–utility figure
(issue 12 item 5), read from stored attack results by workbench.reports.privacy."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.privacy import reid_helpers
from workbench.exchange.reference import reference_run
from workbench.store import RunStore

pytest.importorskip("bm25s")
AppTest = pytest.importorskip("streamlit.testing.v1").AppTest
PAGE = Path(__file__).resolve().parents[3] / "workbench" / "dashboard" / "pages" / "2_Metrics.py"


@pytest.fixture
def attacked_store(tmp_path):
    from workbench.privacy.reid_attacks.reid import reid_risk
    from workbench.upos import get_tagger
    path = tmp_path / "runs.sqlite"
    store = RunStore(path)
    corpus = reid_helpers.corpus()
    tagger = get_tagger("spacy", quiet=True)
    runs = {kind: reference_run(store, corpus, kind, tagger=tagger).run_id for kind in ("original", "suppress")}
    frame = reid_risk(store, list(runs.values()), background=reid_helpers.background(tmp_path / "bk.json"))
    store.close()
    return path, runs, frame.set_index("run_id")


@pytest.mark.slow
def test_the_privacy_tab_shows_the_table_and_the_figure(attacked_store):
    path, runs, stored = attacked_store
    at = AppTest.from_file(str(PAGE), default_timeout=300)
    at.session_state["store_path"] = str(path)
    at.session_state["selected_runs"] = list(runs.values())
    at.run()
    assert not at.exception and not at.error
    privacy = next(t for t in at.tabs if t.label == "Privacy")
    table = privacy.dataframe[0].value
    trir = next(c for c in table.columns if c.startswith("Retrieval re-id.: TRIR"))
    shown = dict(zip(table["Id"], table[trir]))  # "Run" holds the run's name
    for run_id in runs.values():
        # the figure, then its 95 % interval ("1.000 [1.000, 1.000]")
        assert float(shown[run_id[:8]].split()[0]) == pytest.approx(stored.at[run_id, "trir"], abs=5e-4)
    # Issue 39 item 4: the headline (here the retrieval attacker alone) first, its attackers and background said.
    headline = next(c for c in table.columns if c.startswith("Headline re-id.: any attacker (001): TRIR"))
    assert list(table.columns).index(headline) < list(table.columns).index(trir)
    assert dict(zip(table["Id"], table[headline])) == shown
    said = [m.value.replace("\\", "") for m in privacy.markdown if "Headline TRIR" in m.value]  # shown escaped
    assert len(said) == 1 and "retrieval over bk.json@" in said[0] and "(6 candidates)" in said[0]
    images = len(at.get("image"))
    at.checkbox(key="met_privacy_fig").check().run()
    assert not at.exception and not at.error
    assert len(at.get("image")) == images + 1  # the privacy–utility figure
