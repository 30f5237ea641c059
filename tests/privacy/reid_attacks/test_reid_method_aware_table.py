"""The method-aware attack in the privacy table and the headline (issue 39 item 2 and 4): each run's
method-aware TRIR beside the method-blind one with the difference, the strongest of the methods tried
for a run, only an attack of the blind one's settings, and the headline's ensemble taking it in where
stored (the caption and the headline's text say so).

The crowd corpus of reid_helpers (three individuals told apart only by the kinds of entity their texts
name) and the BM25 attacker: its `label` run reads 1/3 to the method-blind attacker and 1.0 to the one
that indexed the background as `label` writes it. Seconds: BM25 over three texts.
"""

from __future__ import annotations

import pytest

from tests.privacy.reid_helpers import crowd, gazetteer, write_run

pytest.importorskip("bm25s")


@pytest.fixture
def attacked(store, tmp_path, cache, monkeypatch):
    """The crowd corpus's label and original runs, attacked method-blind; the label run also as an
    attacker that knows `label` would write it, and one that assumes `suppress`."""
    from workbench.privacy.reid_attacks.reid import reid_risk
    c, bk, entries = crowd(tmp_path)
    monkeypatch.setattr("workbench.privacy.reid_attacks.method_aware.spacy_detector", gazetteer(entries))
    runs = {"label": write_run(store, c, "label", lambda s: s.label),
            "original": write_run(store, c, "original", lambda s: s.text)}
    blind = reid_risk(store, list(runs.values()), background=bk, k=1).set_index("run_id")
    aware = {kind: reid_risk(store, [runs["label"]], background=bk, k=1, method_aware=kind).iloc[0]
             for kind in ("label", "suppress")}
    return runs, bk, blind, aware


def test_the_table_shows_the_method_aware_attack_beside_the_blind_one_with_the_difference(store, attacked):
    from workbench.reports.privacy import privacy_measures
    runs, _, blind, aware = attacked
    assert aware["label"].trir == 1.0 > aware["suppress"].trir  # the label method matters; suppress is weaker
    measures = privacy_measures(store, list(runs.values()), k=1)
    label, original = runs["label"], runs["original"]
    assert measures.at[label, "trir_retrieval"] == pytest.approx(1 / 3)
    # the strongest of the methods tried for the run, and aware − blind beside it
    assert measures.at[label, "trir_retrieval_aware"] == 1.0
    assert measures.at[label, "secrecy_retrieval"] == pytest.approx(2 / 3)
    assert measures.at[label, "trir_retrieval_aware_low"] <= 1.0 <= measures.at[label, "trir_retrieval_aware_high"]
    assert measures.attrs["method_aware"] == {"retrieval": {label: aware["label"].attack_key}}
    # no method-aware attack of the original run: its cells stay empty
    assert measures[["trir_retrieval_aware", "secrecy_retrieval"]].loc[original].isna().all()
    assert measures.attrs["attack_keys"]["retrieval"] == blind.at[label, "attack_key"]  # blind keys unchanged


def test_the_headline_takes_the_method_aware_attack_in_where_stored(store, attacked):
    from workbench.reports.privacy import HEADLINE, attacks_caption, headline_text, privacy_measures
    runs, bk, blind, aware = attacked
    measures = privacy_measures(store, list(runs.values()), k=1)
    label, original = runs["label"], runs["original"]
    # 001's ensemble of the blind attack (1/3 per document) and the aware one (1 per document)
    assert measures.at[label, HEADLINE] == 1.0
    assert measures.at[original, HEADLINE] == pytest.approx(blind.at[original, "trir"])  # blind alone
    assert measures.attrs["headline"]["method_aware"] == {"retrieval": 1}
    assert headline_text(measures).startswith("retrieval, with retrieval+method (1 run) over crowd-bk.json@")
    caption = attacks_caption(measures)
    assert "their method-aware attacks (retrieval+method)" in caption
    assert f"{label[:8]}:{aware['label'].attack_key}" in caption
    assert aware["suppress"].attack_key not in caption  # the weaker method is not the one shown


def test_the_markdown_table_has_the_aware_columns_only_where_an_aware_attack_is_stored(store, attacked):
    from workbench.reports.privacy import privacy_measures, table_spec
    runs, _, _, _ = attacked
    with_aware = [c.metric for c in table_spec(privacy_measures(store, list(runs.values()), k=1)).columns]
    assert {"trir_retrieval_aware", "secrecy_retrieval"} <= set(with_aware)
    without = [c.metric for c in table_spec(privacy_measures(store, [runs["original"]], k=1)).columns]
    assert "trir_retrieval_aware" not in without and "trir_retrieval" in without


def test_an_aware_attack_of_other_settings_is_not_paired_with_the_blind_one(store, attacked, tmp_path):
    from workbench.privacy.reid_attacks.reid import reid_risk
    from workbench.reports.privacy import HEADLINE, privacy_measures
    runs, bk, _, _ = attacked
    other = reid_risk(store, [runs["original"]], background=bk, k=1, config={"k1": 0.9}, method_aware="label")
    measures = privacy_measures(store, list(runs.values()), k=1)
    assert other.attack_key.iloc[0] not in measures.attrs["method_aware"]["retrieval"].values()
    assert pd_isna(measures.at[runs["original"], "trir_retrieval_aware"])
    assert measures.attrs["headline"]["method_aware"] == {"retrieval": 1}
    assert measures.at[runs["label"], HEADLINE] == 1.0


def pd_isna(value) -> bool:
    return value != value  # NaN is the one float not equal to itself
