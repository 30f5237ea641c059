"""The retrieval (BM25) attacker through reid_risk: what it re-identifies, what is stored, reuse and resumption."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.privacy.reid_helpers import PEOPLE, background, corpus, write_run
from workbench.infra.errors import WorkbenchError

pytest.importorskip("bm25s")


@pytest.fixture
def tiny(store, tmp_path):
    c = corpus()
    return store, c, background(tmp_path / "bk.json")


def _docs(store, run_id):
    from workbench.privacy.reid_attacks.reid import reid_documents
    return reid_documents(store, run_id).set_index("doc_id")


def test_every_document_of_an_original_run_is_reidentified(tiny):
    from workbench.privacy.reid_attacks.reid import reid_risk
    store, c, bk = tiny
    original = write_run(store, c, "original", lambda s: s.text)
    row = reid_risk(store, [original], background=bk, k=1).iloc[0]
    assert (row.trir, row.mean_rank, row.rank_le_k) == (1.0, 1.0, 1.0)
    assert (row.n_documents, row.n_candidates, row.n_without_background) == (5, 6, 0)  # 5 documents, 6 individuals
    assert row.complete and row.attacker == "retrieval" and row.attack_key.startswith("retrieval-")
    docs = _docs(store, original)
    assert list(docs.top_guess) == list(docs.index) == sorted(PEOPLE)


def test_suppression_leaves_one_text_for_all_documents_so_at_most_one_is_reidentified(tiny):
    from workbench.privacy.reid_attacks.reid import reid_risk
    store, c, bk = tiny
    original = write_run(store, c, "original", lambda s: s.text)
    suppress = write_run(store, c, "suppress", lambda s: "")
    label = write_run(store, c, "label", lambda s: s.label)
    frame = reid_risk(store, [original, suppress, label], background=bk, k=2).set_index("run_id")
    for run in (suppress, label):
        docs = _docs(store, run)
        assert docs.top_guess.nunique() == 1  # the same text ranks the individuals the same way for every document
        assert frame.loc[run, "trir"] <= 1 / 5 < frame.loc[original, "trir"]
        assert frame.loc[run, "mean_rank"] > frame.loc[original, "mean_rank"]
        assert frame.loc[run, "rank_le_k"] < frame.loc[original, "rank_le_k"]


def test_results_are_stored_per_document_and_reused_without_attacking_again(tiny, monkeypatch):
    from workbench.privacy.reid_attacks import retrieval
    from workbench.privacy.reid_attacks.reid import reid_risk, stored_reid_risk
    store, c, bk = tiny
    run = write_run(store, c, "original", lambda s: s.text)
    first = reid_risk(store, [run], background=bk)
    assert store.db.execute("SELECT COUNT(*) FROM reid_results WHERE run_id=?", (run,)).fetchone()[0] == 5

    def no_attack(self, texts):
        raise AssertionError("attacked again")
    monkeypatch.setattr(retrieval.RetrievalAttacker, "scores", no_attack)
    pd.testing.assert_frame_equal(reid_risk(store, [run[:8]], background=bk), first)
    pd.testing.assert_frame_equal(stored_reid_risk(store, [run]), first)


def test_an_interrupted_attack_resumes_with_the_documents_left(tiny, monkeypatch):
    from workbench.privacy.reid_attacks import reid, retrieval
    store, c, bk = tiny
    run = write_run(store, c, "original", lambda s: s.text)
    monkeypatch.setattr(retrieval.RetrievalAttacker, "batch_documents", 2)
    real, seen = retrieval.RetrievalAttacker.scores, []

    def failing_second_batch(self, texts):
        seen.append(len(texts))
        if len(seen) == 2:
            raise KeyboardInterrupt
        return real(self, texts)
    monkeypatch.setattr(retrieval.RetrievalAttacker, "scores", failing_second_batch)
    with pytest.raises(KeyboardInterrupt):
        reid.reid_risk(store, [run], background=bk)
    assert store.db.execute("SELECT COUNT(*) FROM reid_results").fetchone()[0] == 2  # the first batch, whole

    def counting(self, texts):
        seen.append(len(texts))
        return real(self, texts)
    monkeypatch.setattr(retrieval.RetrievalAttacker, "scores", counting)
    seen.clear()
    row = reid.reid_risk(store, [run], background=bk).iloc[0]
    assert seen == [2, 1]  # the three documents left, in batches of two
    assert (row.trir, row.n_documents, row.complete) == (1.0, 5, True)


def test_a_document_whose_pseudonymised_text_changed_is_attacked_again(tiny, monkeypatch):
    from workbench.privacy.reid_attacks import retrieval
    from workbench.privacy.reid_attacks.reid import reid_risk, stored_reid_risk
    store, c, bk = tiny
    run = write_run(store, c, "original", lambda s: s.text)
    reid_risk(store, [run], background=bk)
    with store.transaction() as db:  # e.g. a FAILED span generated again
        db.execute("UPDATE predictions SET pseudonym='' WHERE run_id=? AND doc_id='doc-c'", (run,))
    assert not stored_reid_risk(store, [run]).iloc[0].complete  # the stale row is not reported
    real, seen = retrieval.RetrievalAttacker.scores, []
    monkeypatch.setattr(retrieval.RetrievalAttacker, "scores",
                        lambda self, texts: seen.append(list(texts)) or real(self, texts))
    row = reid_risk(store, [run], background=bk).iloc[0]
    assert len(seen) == 1 and len(seen[0]) == 1 and "Teodor" not in seen[0][0]
    assert row.complete and row.trir < 1.0  # doc-c, with every span removed, is the same text as any suppressed one


def test_documents_without_background_count_as_not_reidentified_and_are_named(store, tmp_path):
    from workbench.privacy.reid_attacks.reid import reid_risk
    c = corpus()
    people = {d: p for d, p in PEOPLE.items() if d != "doc-e"}
    bk = background(tmp_path / "partial.json", people=people)
    run = write_run(store, c, "original", lambda s: s.text)
    said = []
    row = reid_risk(store, [run], background=bk, log=said.append).iloc[0]
    assert (row.trir, row.n_without_background, row.n_documents) == (0.8, 1, 5)
    assert row.mean_rank == 1.0  # over the documents that can be ranked
    assert any("doc-e" in line and "partial.json" in line for line in said)


def test_an_incomplete_run_is_refused_before_anything_is_attacked(tiny):
    from workbench.privacy.reid_attacks.reid import reid_risk
    store, c, bk = tiny
    run = write_run(store, c, "half", lambda s: s.text, complete=False)
    with pytest.raises(WorkbenchError, match=f"run {run} is not complete"):
        reid_risk(store, [run], background=bk)
    assert store.db.execute("SELECT COUNT(*) FROM reid_results").fetchone()[0] == 0


def test_deleting_a_run_deletes_its_results(tiny):
    from workbench.privacy.reid_attacks.reid import reid_risk, stored_reid_risk
    store, c, bk = tiny
    keep, gone = (write_run(store, c, name, lambda s: s.text) for name in ("keep", "gone"))
    reid_risk(store, [keep, gone], background=bk)
    store.delete_run(gone)
    assert list(stored_reid_risk(store).run_id) == [keep]


@pytest.mark.parametrize("options, message", [
    ({"k1": "-1"}, "k1 >= 0"),
    ({"stopwords": "klingon"}, "stopwords must be"),
    ({"k3": "1"}, r"the retrieval attacker has no option 'k3' \(options: k1, b, stopwords\)"),
    ({"stopword": "en"}, "the retrieval attacker has no option 'stopword'; did you mean 'stopwords'"),
    ({"b": "half"}, "option 'b' of the retrieval attacker must be a number, not 'half'"),
])
def test_bad_attacker_options_are_named(tiny, options, message):
    from workbench.privacy.reid_attacks.reid import reid_risk
    store, c, bk = tiny
    run = write_run(store, c, "original", lambda s: s.text)
    with pytest.raises(WorkbenchError, match=message):
        reid_risk(store, [run], background=bk, config=options)


def test_settings_and_background_are_part_of_the_attack_key(tiny, tmp_path):
    from workbench.privacy.reid_attacks.reid import reid_risk
    store, c, bk = tiny
    run = write_run(store, c, "original", lambda s: s.text)
    other = background(tmp_path / "other.json", people={d: {**p, "year": "2000"} for d, p in PEOPLE.items()})
    keys = {reid_risk(store, [run], background=bk).attack_key[0],
            reid_risk(store, [run], background=bk, config={"k1": "0.9"}).attack_key[0],
            reid_risk(store, [run], background=other).attack_key[0]}
    assert len(keys) == 3
    assert len(set(store.db.execute("SELECT attack_key FROM reid_results").fetchall())) == 3


def test_ties_are_resolved_at_random_in_expectation():
    """Golden rows: what one document contributes to TRIR, the mean rank and rank<=k (k=3)."""
    from workbench.privacy.reid_attacks.reid import per_document
    rows = pd.DataFrame({"individual": ["a", "b", "c", "d", None], "n_higher": [0, 0, 2, 1, None],
                         "n_tied": [0, 3, 0, 4, None]})
    out = per_document(rows, 3)
    assert list(out.hit) == [1.0, 0.25, 0.0, 0.0, 0.0]
    assert list(out["rank"].iloc[:4]) == [1.0, 2.5, 3.0, 4.0] and pd.isna(out["rank"].iloc[4])
    assert list(out.rank_le_k) == [1.0, 0.75, 1.0, 0.4, 0.0]


def test_rank_of_counts_strictly_higher_and_exactly_equal_scores():
    import numpy as np

    from workbench.privacy.reid_attacks.reid import rank_of
    scores = np.array([0.5, 2.0, 0.5, 1.0, 0.5])
    assert rank_of(scores, 0) == (2, 2)
    assert rank_of(scores, 1) == (0, 0)


def test_the_reference_runs_order_as_expected(store, tmp_path):
    """The real reference runs (workbench.exchange.reference): `original` re-identified whole,
    `suppress` and `label` not."""
    from tests.metrics.conftest import WordListTagger
    from workbench.exchange.reference import reference_run
    from workbench.privacy.reid_attacks.reid import reid_risk
    c = corpus()
    runs = {kind: reference_run(store, c, kind, tagger=WordListTagger()).run_id for kind in ("original", "suppress",
                                                                                              "label")}
    frame = reid_risk(store, list(runs.values()), background=background(tmp_path / "bk.json")).set_index("run_id")
    assert frame.loc[runs["original"], "trir"] == 1.0
    assert frame.loc[runs["suppress"], "trir"] <= 1 / 5 and frame.loc[runs["label"], "trir"] <= 1 / 5


def test_nothing_is_attacked_when_one_of_the_runs_is_incomplete(tiny):
    from workbench.privacy.reid_attacks.reid import reid_risk
    store, c, bk = tiny
    whole = write_run(store, c, "original", lambda s: s.text)
    half = write_run(store, c, "half", lambda s: s.text, complete=False)
    with pytest.raises(WorkbenchError, match=f"run {half} is not complete"):
        reid_risk(store, [whole, half], background=bk)
    assert store.db.execute("SELECT COUNT(*) FROM reid_results").fetchone()[0] == 0
