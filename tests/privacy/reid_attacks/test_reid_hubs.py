"""retrieval-ids-z (issue 39, toward TRIR 0.95 on the original): each individual's BM25 scores
standardised over reference pieces of the background, so an individual every text scores high for
(a "hub": on TAB test a long background text drew 10 of the documents no attacker re-identified)
no longer takes the documents of others.

BM25 itself is stubbed to a hand-made score table (a hub column high for every query): the test is
of the correction, its reference and its key; retrieval-ids' BM25 has its own tests."""

from __future__ import annotations

import json

import numpy as np
import pytest

from workbench.privacy.reid_attacks.background import Background

pytest.importorskip("bm25s")

INDIVIDUALS = ("a", "b", "hub")
TEXTS = ("alpha " * 10, "beta " * 10, "legal words " * 40)


def _background(tmp_path) -> Background:
    from workbench.privacy.reid_attacks.background import load_background
    path = tmp_path / "bk.json"
    path.write_text(json.dumps(dict(zip(INDIVIDUALS, TEXTS))), encoding="utf-8")
    return load_background(path)


def _raw(texts):
    """BM25 as a hub makes it: the hub scores 5 for everything; a or b 4 where the text names them."""
    rows = []
    for text in texts:
        rows.append([4.0 * ("alpha" in text), 4.0 * ("beta" in text), 5.0] if text.strip() else [0.0, 0.0, 0.0])
    return np.array(rows)


@pytest.fixture
def attacker(tmp_path, monkeypatch):
    from workbench.privacy.reid_attacks.attackers import make_attacker
    from workbench.privacy.reid_attacks.retrieval_ids import IdRetrievalAttacker
    monkeypatch.setattr(IdRetrievalAttacker, "scores", lambda self, texts: _raw(texts))
    return make_attacker("retrieval-ids-z", _background(tmp_path), None, "en")


def test_the_hub_no_longer_takes_the_documents_of_others(attacker):
    raw = _raw(["about alpha", "about beta"])
    assert (raw.argmax(axis=1) == 2).all()  # method-blind BM25: the hub first for both
    z = attacker.scores(["about alpha", "about beta"])
    assert list(z.argmax(axis=1)) == [0, 1]
    # by hand: the reference pieces are the background's own texts here (shorter than a piece):
    # a and b each score 4 for one of the three pieces, the hub 5 for all (std 0 -> its raw scale)
    mean_a, std_a = 4 / 3, np.std([4.0, 0.0, 0.0])
    assert z[0, 0] == pytest.approx((4 - mean_a) / std_a)
    assert z[0, 2] == pytest.approx(0.0)  # (5 - 5) / 1


def test_a_text_with_no_indexed_word_stays_a_tie(attacker):
    assert (attacker.scores([" "]) == 0).all()


def test_reference_pieces_are_evenly_spaced_and_of_the_piece_length():
    from workbench.privacy.reid_attacks.retrieval_hub import reference_pieces
    text = "".join(chr(ord("a") + i % 26) for i in range(10_000))
    pieces = reference_pieces([text, "short"], chars=1000, per=4)
    assert len(pieces) == 5 and all(len(p) == 1000 for p in pieces[:4]) and pieces[4] == "short"
    assert pieces[0] == text[:1000] and pieces[3] == text[-1000:]
    assert pieces[1] == text[3000:4000]


def test_its_key_names_the_normalisation_and_retrieval_ids_keeps_its_own(tmp_path):
    from workbench.privacy.reid_attacks.attackers import make_attacker
    from workbench.privacy.reid_attacks.reid_contract import attack_key
    bk = _background(tmp_path)
    z, ids = make_attacker("retrieval-ids-z", bk, None, "en"), make_attacker("retrieval-ids", bk, None, "en")
    assert z.describe() == {**ids.describe(), "normalise": "background-z-3000x8"}
    assert attack_key(z).startswith("retrieval-ids-z-") and attack_key(ids).startswith("retrieval-ids-")
    assert "normalise" not in ids.describe()


@pytest.fixture
def run_attacker(tmp_path, monkeypatch):
    from workbench.privacy.reid_attacks.attackers import make_attacker
    from workbench.privacy.reid_attacks.retrieval_ids import IdRetrievalAttacker
    monkeypatch.setattr(IdRetrievalAttacker, "scores", lambda self, texts: _raw(texts))
    return make_attacker("retrieval-ids-run", _background(tmp_path), None, "en")


def test_over_the_runs_documents_the_hub_is_its_own_level(run_attacker):
    z = run_attacker.scores(["about alpha", "about beta", "about neither"])
    assert list(z[:2].argmax(axis=1)) == [0, 1]  # the hub scores 5 for all three: z 0, below a's and b's
    assert z[0, 0] == pytest.approx((4 - 4 / 3) / np.std([4.0, 0.0, 0.0]))
    assert (run_attacker.scores(["about alpha"]) == _raw(["about alpha"])).all()  # one document: raw
    assert run_attacker.describe()["normalise"] == "run-z-1"


def test_a_whole_run_attacker_rescores_every_document_together(store, tmp_path, monkeypatch):
    """Its rows are of one scoring of the whole run: a changed document makes reid score all again."""
    from tests.privacy.reid_helpers import background, corpus, write_run
    from workbench.privacy.reid_attacks import reid
    from workbench.privacy.reid_attacks.attackers import make_attacker
    from workbench.privacy.reid_attacks.background import load_background
    bk = load_background(background(tmp_path / "people.json"))
    attacker = make_attacker("retrieval-ids-run", bk, None, "en")
    run = store.resolve_run(write_run(store, corpus(), "original", lambda s: s.text))
    texts = reid.attacked_texts(store, run)
    key = "retrieval-ids-run-test"
    (batch,), _ = reid.todo_batches(store, run, texts, attacker, key)
    assert batch == list(texts)
    hashes = {d: reid._sha(t) for d, t in texts.items()}
    reid.save_rows(store, reid.score_batch(attacker, run.run_id, key, texts, hashes))
    assert reid.todo_batches(store, run, texts, attacker, key)[0] == []  # all stored: nothing to do
    changed = {**texts, next(iter(texts)): "another text"}
    assert reid.todo_batches(store, run, changed, attacker, key)[0] == [list(texts)]  # one changed: all again
