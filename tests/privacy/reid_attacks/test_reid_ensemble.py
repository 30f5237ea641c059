"""Paper 001 §6's ensemble re-identification rate (workbench.privacy.reid_attacks.reid.ensemble_trir) on results
written by hand into reid_results, and its column in the privacy table.

Five documents, two attacks over one background; (n_higher, n_tied) per document and the
expected hit of each (ties in expectation: 1/(n_tied+1) when nothing scores higher):
    doc   retrieval        trained          ensemble = 1 − (1 − r)(1 − t)
    a     (0, 0) → 1       (0, 0) → 1       1
    b     (0, 0) → 1       (2, 0) → 0       1
    c     (1, 0) → 0       (0, 1) → 1/2     1/2
    d     (0, 1) → 1/2     (0, 3) → 1/4     1 − 1/2 · 3/4 = 5/8
    e     no background    no background    0
TRIR retrieval 2.5/5 = 0.5, trained 1.75/5 = 0.35, ensemble 3.125/5 = 0.625.
"""

from __future__ import annotations

import hashlib
import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import scipy.stats

from tests.metrics.conftest import make_context
from tests.privacy import reid_helpers
from workbench.privacy.reid_attacks.reid import attacked_texts, stored_ensemble, stored_ensemble_trir, stored_reid_risk
from workbench.privacy.reid_attacks.reid_store import new_row, save_rows
from workbench.reports.privacy import attacks_caption, privacy_measures

RESULTS = {  # doc -> ((n_higher, n_tied) for retrieval, for trained); None: not in the background
    "doc-a": ((0, 0), (0, 0)),
    "doc-b": ((0, 0), (2, 0)),
    "doc-c": ((1, 0), (0, 1)),
    "doc-d": ((0, 1), (0, 3)),
    "doc-e": (None, None),
}
KEYS = {"retrieval": "retrieval-hand-0001", "trained": "trained-hand-0002"}


def store_results(store, run_id: str, attacker: str, *, background="bk.json@00000000", docs=None) -> None:
    run = store.resolve_run(run_id)
    column = list(KEYS).index(attacker)
    rows = []
    for doc_id, text in attacked_texts(store, run).items():
        if docs is not None and doc_id not in docs:
            continue
        result = RESULTS[doc_id][column]
        higher, tied = result if result else (None, None)
        rows.append(new_row(run_id, KEYS[attacker], doc_id, attacker, {}, background, "0" * 64,
                            hashlib.sha256(text.encode("utf-8")).hexdigest(), doc_id if result else None,
                            higher, tied, 6, doc_id))
    save_rows(store, rows)


@pytest.fixture
def run_id(store):
    return reid_helpers.write_run(store, reid_helpers.corpus(), "kept", lambda span: span.text)


def test_a_document_counts_when_any_attack_ranks_it_first(store, run_id):
    for attacker in KEYS:
        store_results(store, run_id, attacker)
    single = stored_reid_risk(store, [run_id]).set_index("attacker")["trir"]
    assert single["retrieval"] == pytest.approx(0.5) and single["trained"] == pytest.approx(0.35)
    ensemble = stored_ensemble_trir(store, [run_id], list(KEYS.values()))
    assert ensemble[run_id] == pytest.approx(3.125 / 5)


def test_an_ensemble_of_one_attack_is_its_trir(store, run_id):
    store_results(store, run_id, "retrieval")
    assert stored_ensemble_trir(store, [run_id], [KEYS["retrieval"]])[run_id] == pytest.approx(0.5)


def test_an_attack_that_has_not_reached_every_document_gives_no_ensemble(store, run_id):
    store_results(store, run_id, "retrieval")
    store_results(store, run_id, "trained", docs={"doc-a", "doc-b", "doc-c", "doc-d"})
    assert math.isnan(stored_ensemble_trir(store, [run_id], list(KEYS.values()))[run_id])


def test_the_privacy_table_shows_the_ensemble_and_its_caption_names_the_keys(store, run_id, tmp_path):
    for attacker in KEYS:
        store_results(store, run_id, attacker)
    measures = privacy_measures(store, [run_id], k=2)
    assert measures.at[run_id, "trir_ensemble"] == pytest.approx(0.625)
    assert measures.attrs["ensemble"] == KEYS
    # with its interval (issue 40; by hand in the test below)
    interval = stored_ensemble(store, [run_id], list(KEYS.values())).loc[run_id]
    assert measures.at[run_id, "trir_ensemble_low"] == interval["trir_low"] < 0.625 < interval["trir_high"]
    assert measures.at[run_id, "trir_ensemble_high"] == interval["trir_high"]
    assert attacks_caption(measures).endswith(
        "|headline TRIR=any of retrieval, trained over bk.json@00000000 (6 candidates): a document re-identified "
        f"when any of retrieval:{KEYS['retrieval']}+trained:{KEYS['trained']} ranks its individual first; no "
        "method-aware attack stored (`workbench privacy reid --method-aware`)")
    assert measures.at[run_id, "candidates"] == 6
    from workbench.reports import write_report
    write_report(store, [run_id], tmp_path / "r", formats=("md", "csv"), context=make_context(), k=2,
                 families=("overlap",))  # the privacy side needs no model
    table = pd.read_csv(tmp_path / "r" / "table_privacy.csv", index_col="run_id")
    assert table.at[run_id, "trir_ensemble"] == pytest.approx(0.625)
    assert table.at[run_id, "trir_ensemble_low"] == pytest.approx(interval["trir_low"])
    assert table.at[run_id, "trir_ensemble_high"] == pytest.approx(interval["trir_high"])
    markdown = (tmp_path / "r" / "table_privacy.md").read_text(encoding="utf-8")
    assert "Headline re-id.: any attacker (001)" in markdown and f"any of retrieval:{KEYS['retrieval']}" in markdown
    assert table.at[run_id, "candidates"] == 6
    assert f"0.625 [{interval['trir_low']:.3f}, {interval['trir_high']:.3f}]" in markdown


def test_attacks_over_different_backgrounds_the_headline_takes_one_background(store, run_id):
    """001's ensemble ranks one set of individuals: over two backgrounds (one attacker each, as many
    candidates) the headline is the attacks over the stronger's (retrieval, 0.5 against 0.35), the other
    shown beside it."""
    store_results(store, run_id, "retrieval")
    store_results(store, run_id, "trained", background="other.json@11111111")
    measures = privacy_measures(store, [run_id], k=2)
    assert measures.at[run_id, "trir_ensemble"] == pytest.approx(0.5)  # retrieval's alone (over bk.json)
    assert measures.attrs["ensemble"] == {"retrieval": KEYS["retrieval"]}
    assert measures.at[run_id, "trir_trained"] == pytest.approx(0.35)  # beside it
    assert "(trained: another background, shown beside it, not in it)" in attacks_caption(measures)


def hand_percentile_interval(unit_num: list[float], unit_den: list[float], *, resamples=1000, seed=13, level=0.95):
    """The documented draws written out (workbench.uncertainty: numpy's PCG64 from the seed, one
    (resamples × n) matrix of unit indices) and the percentile rule by hand: linear interpolation
    between the sorted replicates at position q (R − 1)."""
    n = len(unit_num)
    rows = np.random.default_rng(seed).integers(0, n, size=(resamples, n), dtype=np.int32).tolist()
    replicates = sorted(sum(unit_num[i] for i in row) / sum(unit_den[i] for i in row) for row in rows)

    def quantile(q: float) -> float:
        position = q * (len(replicates) - 1)
        below = int(position)
        above = min(below + 1, len(replicates) - 1)
        return replicates[below] + (position - below) * (replicates[above] - replicates[below])
    return quantile((1 - level) / 2), quantile((1 + level) / 2)


def test_the_ensemble_trir_has_its_document_bootstrap_interval_by_hand(store, run_id):
    """Issue 40: the ensemble's TRIR is a mean over documents of their expected ensemble hit (the
    table in the module docstring: a 1, b 1, c 1/2, d 5/8, e 0), so its interval resamples those
    five values, documents in doc_id order; recomputed here from the draws by hand."""
    for attacker in KEYS:
        store_results(store, run_id, attacker)
    ensemble = stored_ensemble(store, [run_id], list(KEYS.values())).loc[run_id]
    low, high = hand_percentile_interval([1.0, 1.0, 0.5, 0.625, 0.0], [1.0] * 5)
    assert ensemble["trir"] == pytest.approx(0.625)
    assert (ensemble["trir_low"], ensemble["trir_high"]) == (pytest.approx(low, abs=1e-12),
                                                             pytest.approx(high, abs=1e-12))
    assert 0 <= low < 0.625 < high <= 1
    # scipy's percentile rule over the same replicates agrees (no new draws: bootstrap_result)
    hits = np.array([1.0, 1.0, 0.5, 0.625, 0.0])
    draws = np.random.default_rng(13).integers(0, 5, size=(1000, 5), dtype=np.int32)
    theirs = scipy.stats.bootstrap((hits,), np.mean, n_resamples=0, method="percentile",
                                   bootstrap_result=SimpleNamespace(bootstrap_distribution=hits[draws].mean(axis=1)))
    assert ensemble["trir_low"] == pytest.approx(theirs.confidence_interval.low, abs=1e-12)
    assert ensemble["trir_high"] == pytest.approx(theirs.confidence_interval.high, abs=1e-12)


def test_no_ensemble_no_interval(store, run_id):
    store_results(store, run_id, "retrieval")
    store_results(store, run_id, "trained", docs={"doc-a", "doc-b", "doc-c", "doc-d"})
    assert stored_ensemble(store, [run_id], list(KEYS.values())).loc[run_id].isna().all()
