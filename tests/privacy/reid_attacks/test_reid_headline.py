"""Issue 39 item 4: the privacy table's headline TRIR is the strongest attack shown (001's ensemble
of every attacker run over one background), every attacker's own figure beside it, and it says
which attackers and which background produced it and how many candidates each document had.

A tiny corpus (reid_helpers: five individuals) attacked by the two retrieval attackers (seconds)
over a background of a larger population than the corpus protects (eleven individuals, as
TAE's TAB_testdev_BK=Public10%.json holds the dev split's individuals beside the test split's),
under a file name like TAE's, '=' and '%' in it.
"""

from __future__ import annotations

import hashlib
import json

import pytest

from tests.metrics.conftest import make_context
from tests.privacy import reid_helpers

pytest.importorskip("bm25s")

# Five more individuals than the corpus's five and reid_helpers' extra one: none of them is protected.
OTHERS = {
    f"doc-{k}": dict(name=name, year=year, city=city, date=date, org=org)
    for k, (name, year, city, date, org) in enumerate([
        ("Ingrid Solheim", "1955", "Bergen", "1 April 1998", "Hordaland Coast Guard"),
        ("Piotr Zawadzki", "1977", "Gdańsk", "9 May 2002", "Pomorze Customs Office"),
        ("Elena Munteanu", "1980", "Cluj", "14 July 2004", "Someș Police Inspectorate"),
        ("Kemal Aydoğan", "1966", "Bursa", "3 March 1997", "Uludağ Gendarmerie"),
        ("Joana Figueira", "1972", "Braga", "22 November 2000", "Cávado Harbour Office"),
    ], start=1)}
ATTACKERS = ("retrieval", "retrieval-ids")


@pytest.fixture
def attacked(store, tmp_path):
    from workbench.privacy.reid_attacks.reid import reid_risk
    corpus = reid_helpers.corpus()
    runs = {"original": reid_helpers.write_run(store, corpus, "original", lambda span: span.text),
            "suppress": reid_helpers.write_run(store, corpus, "suppress", lambda span: ""),
            # names kept, everything else removed: the two attackers read it differently
            "names": reid_helpers.write_run(store, corpus, "names",
                                            lambda span: span.text if span.label == "PERSON" else "")}
    bk = reid_helpers.background(tmp_path / "tiny_testdev_BK=Public10%.json",
                                 people={**reid_helpers.PEOPLE, **OTHERS})
    frames = {a: reid_risk(store, list(runs.values()), attacker=a, background=bk, k=2).set_index("run_id")
              for a in ATTACKERS}
    return runs, bk, frames


def test_the_headline_is_any_attacker_over_the_larger_population(store, attacked):
    from workbench.privacy.reid_attacks.reid import stored_ensemble
    from workbench.reports.privacy import HEADLINE, privacy_measures
    runs, bk, frames = attacked
    measures = privacy_measures(store, list(runs.values()), k=2)
    keys = {a: frames[a]["attack_key"].iloc[0] for a in ATTACKERS}
    assert measures.attrs["ensemble"] == keys
    label = f"{bk.name}@{hashlib.sha256(bk.read_bytes()).hexdigest()[:12]}"
    assert measures.attrs["headline"] == {"attackers": list(ATTACKERS), "background": label, "candidates": 11}
    expected = stored_ensemble(store, list(runs.values()), list(keys.values()))
    for run_id in runs.values():
        assert measures.at[run_id, HEADLINE] == pytest.approx(expected.at[run_id, "trir"])
        for attacker in ATTACKERS:  # every attacker's own figure beside it, and never above it
            assert measures.at[run_id, f"trir_{attacker}"] == pytest.approx(frames[attacker].at[run_id, "trir"])
            assert measures.at[run_id, HEADLINE] >= measures.at[run_id, f"trir_{attacker}"] - 1e-12
        assert measures.at[run_id, "candidates"] == 11  # of the background, not the corpus's five
        assert frames["retrieval"].at[run_id, "n_candidates"] == 11
    assert measures.at[runs["original"], HEADLINE] == 1.0  # every original document re-identified
    assert measures.at[runs["suppress"], HEADLINE] < 1.0


def test_the_report_names_the_headline_attackers_and_background(store, attacked):
    """The privacy table (its Markdown and CSV), report.md with its conclusions block, the headline
    figure and the privacy–utility figure's points, from one report's content (the families that
    load no model: the privacy side needs none)."""
    from workbench.reports import bar_figures, privacy, tables
    from workbench.reports.content import build_report
    from workbench.reports.report_page import report_markdown
    runs, bk, _ = attacked
    content = build_report(store, list(runs.values()), context=make_context(), families=("overlap",), k=2)
    sha = hashlib.sha256(bk.read_bytes()).hexdigest()[:12]
    said = f"any of retrieval, retrieval-ids over {bk.name}@{sha} (11 candidates)"
    table_md = tables.to_markdown(content.private, privacy.table_spec(content.measures), content.privacy_caption)
    header = table_md.splitlines()[0]
    assert header.index("Headline re-id.: any attacker (001): TRIR") < header.index("Retrieval re-id.: TRIR")
    assert "candidates" in header and "Retrieval-ids re-id.: TRIR" in header
    assert "Trained re-id." not in header  # an attacker not run has no column of "–"
    assert f"headline TRIR={said}" in table_md
    report = report_markdown(content, ("md",))
    assert f"Headline TRIR (the strongest attack: a document counts as re-identified when any attacker run " \
           f"re-identifies it): {said}." in report
    assert f"headline (strongest: {said}) re-identification: TRIR" in report  # the conclusions block
    csv = tables.to_csv_frame(content.private, privacy.TABLE).set_index("run_id")
    assert (csv.loc[list(runs.values()), "candidates"] == 11).all()
    # the headline figure and the privacy–utility figure's points read the headline column
    assert [m for m in bar_figures.headline_metrics(content.private) if m.startswith("trir_")] == ["trir_ensemble"]
    points = content.points.set_index("run_id")
    assert set(points["attacker"]) == {"strongest (any of retrieval, retrieval-ids)"}
    for run_id in runs.values():
        assert points.at[run_id, "trir"] == pytest.approx(csv.at[run_id, "trir_ensemble"])


def test_over_several_backgrounds_the_headline_takes_the_one_most_attackers_ran_over(store, attacked, tmp_path):
    """Attacks stored over two backgrounds: the headline and every attacker's column come from the
    background most attackers were run over; on a tie, from the strongest (the highest mean TRIR)."""
    from workbench.privacy.reid_attacks.reid import reid_risk, stored_reid_risk
    from workbench.reports.privacy import HEADLINE, privacy_measures
    runs, big, frames = attacked
    small = reid_helpers.background(tmp_path / "small.json")  # the five and one more: 6 candidates
    ids = list(runs.values())
    reid_risk(store, ids, attacker="retrieval", background=small, k=2)
    measures = privacy_measures(store, ids, k=2)
    assert measures.attrs["headline"]["background"].startswith(big.name)  # two attackers over it, one over small
    assert measures.attrs["ensemble"] == {a: frames[a]["attack_key"].iloc[0] for a in ATTACKERS}
    assert (measures.loc[ids, "candidates"] == 11).all()
    reid_risk(store, ids, attacker="retrieval-ids", background=small, k=2)  # now two over each
    stored = stored_reid_risk(store, ids, k=2)
    strength = stored.groupby("background")["trir"].mean()
    measures = privacy_measures(store, ids, k=2)
    chosen = measures.attrs["headline"]["background"]
    assert strength[chosen] == strength.max() and measures.attrs["headline"]["attackers"] == list(ATTACKERS)
    for attacker in ATTACKERS:  # each column over the headline's background
        own = stored[(stored["attacker"] == attacker) & (stored["background"] == chosen)].set_index("run_id")
        assert measures.loc[ids, f"trir_{attacker}"].tolist() == pytest.approx(own.loc[ids, "trir"].tolist())
        assert (measures.loc[ids, HEADLINE] >= measures.loc[ids, f"trir_{attacker}"] - 1e-12).all()


def test_a_background_holding_others_is_read_unedited(tmp_path):
    """TAE's file shape: keys the corpus does not have, a byte-order mark opening each text."""
    from workbench.privacy.reid_attacks.background import load_background
    texts = {"doc-a": "\ufeffCASE OF A", "dev-1": "\ufeffCASE OF B", "dev-2": "\ufeffCASE OF C"}
    path = tmp_path / "TAB_testdev_BK=Public10%.json"
    path.write_text(json.dumps(texts), encoding="utf-8")
    bk = load_background(path)
    assert bk.individuals == ("dev-1", "dev-2", "doc-a") and bk.texts[2] == "CASE OF A"
    assert bk.missing(["doc-a", "doc-b"]) == ["doc-b"]


def test_the_caption_says_which_attacker_reads_the_whole_run(store, attacked):
    """retrieval-ids-run's figure assumes an attacker holding the released corpus: the caption says so
    when (and only when) it was run (its class sets whole_run; retrieval and retrieval-ids do not)."""
    from workbench.privacy.reid_attacks.reid import reid_risk
    from workbench.reports.privacy import attacks_caption, privacy_measures
    runs, bk, _ = attacked
    assert "transductive" not in attacks_caption(privacy_measures(store, list(runs.values()), k=2))
    reid_risk(store, list(runs.values()), attacker="retrieval-ids-run", background=bk, k=2)
    caption = attacks_caption(privacy_measures(store, list(runs.values()), k=2))
    assert "|transductive: retrieval-ids-run scores each document against all of the attacked run's" in caption
