"""Issue 39 item 3: attackers that read identifiers (retrieval-ids), a dense retriever (retrieval-dense)
and their reciprocal rank fusion (retrieval-fused), on hand-made backgrounds."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest

from tests.privacy.reid_helpers import background, corpus, write_run

pytest.importorskip("bm25s")

NEW_ATTACKERS = ("retrieval-ids", "retrieval-dense", "retrieval-fused")


def test_identifier_tokens_keep_codes_numbers_and_dates_whole():
    from workbench.text.id_tokens import identifier_tokens
    assert identifier_tokens("Application no. 36110/97 was lodged by Mr Quist.") == [
        "application", "no", "36110/97", "was", "lodged", "by", "mr", "quist"]
    assert "1234/05" in identifier_tokens("ansökan 1234/05") and "12345/67" in identifier_tokens("(no. 12345/67)")
    # One date, four spellings, one token; a month and year is a month.
    for written in ("12 March 1997", "1997-03-12", "March 12, 1997", "12.03.1997", "12th of March 1997"):
        assert identifier_tokens(f"on {written}.") == ["on", "1997-03-12"], written
    assert identifier_tokens("den 3:e augusti 2003") == ["den", "2003-08-03"]
    assert identifier_tokens("in March 1997") == ["in", "1997-03"]
    assert identifier_tokens("31 February 1997") == ["31", "february", "1997"]  # no calendar day: as written
    assert identifier_tokens("EUR 1,000 and 12.5 % at 10:30") == ["eur", "1,000", "and", "12.5", "at", "10:30"]
    assert identifier_tokens("well-known") == ["well", "known"]  # words joined without a digit stay words


def _application_background(tmp_path):
    """Four judgments; the true one (case-a) names 36110/97 once. case-b joins related applications
    and names 36110 and 97 twice each in other numbers, so word pieces favour it."""
    texts = {
        "case-a": "Judgment in the case of Halvard Quist, application 36110/97, concerning detention in Trondheim.",
        "case-b": "Judgment in the joined applications 36110/96 and 36110/95 and 11111/97 and 22222/97 of Mirela "
                  "Ostrowska.",
        "case-c": "Judgment in the case of Teodor Vancea, application 41230/01, concerning property in Timisoara.",
        "case-d": "Judgment in the case of Aylin Karaduman, application 52871/03, concerning expropriation.",
    }
    path = tmp_path / "applications.json"
    path.write_text(json.dumps(texts), encoding="utf-8")
    from workbench.privacy.reid_attacks.background import load_background
    return load_background(path)


def test_an_application_number_alone_reidentifies_with_identifiers_and_not_with_words(tmp_path):
    from workbench.privacy.reid_attacks.attackers import make_attacker
    bk = _application_background(tmp_path)
    query = ["The applicant (no. 36110/97) complained of the length of the proceedings."]  # all else suppressed
    words = make_attacker("retrieval", bk, {}, "en").scores(query)[0]
    ids = make_attacker("retrieval-ids", bk, {}, "en").scores(query)[0]
    individuals = list(bk.individuals)
    assert individuals[int(np.argmax(ids))] == "case-a" and np.sum(ids > 0) == 1  # only case-a has the token
    assert individuals[int(np.argmax(words))] == "case-b"  # 36110 and 97 twice each outweigh them once


def test_reciprocal_rank_fusion_adds_one_over_k_plus_rank_ties_sharing_the_best_rank():
    from workbench.privacy.reid_attacks.fusion import ranks, reciprocal_rank_fusion
    bm25 = np.array([[3.0, 1.0, 1.0, 0.0]])
    dense = np.array([[0.2, 0.9, 0.5, 0.1]])
    assert ranks(bm25).tolist() == [[1, 2, 2, 4]] and ranks(dense).tolist() == [[3, 1, 2, 4]]
    fused = reciprocal_rank_fusion([bm25, dense], k=60)
    expected = [1 / 61 + 1 / 63, 1 / 62 + 1 / 61, 1 / 62 + 1 / 62, 1 / 64 + 1 / 64]
    np.testing.assert_allclose(fused[0], expected)
    assert np.argsort(-fused[0]).tolist() == [1, 0, 2, 3]  # 2nd and 1st beats 1st and 3rd
    # A query BM25 knows no word of ties everyone at rank 1: the order is the other attacker's.
    blind = reciprocal_rank_fusion([np.zeros((1, 4)), dense], k=60)
    assert np.argsort(-blind[0]).tolist() == np.argsort(-dense[0]).tolist()


class FirstWordEmbedder:
    """One-hot of a window's first word (alpha, beta, gamma, delta; anything else one more axis)."""

    id = "test:first-word"
    WORDS = ("alpha", "beta", "gamma", "delta")

    def embed(self, texts):
        out = np.zeros((len(texts), len(self.WORDS) + 1), dtype=np.float32)
        for row, text in enumerate(texts):
            first = text.split()[0] if text.split() else ""
            out[row, self.WORDS.index(first) if first in self.WORDS else len(self.WORDS)] = 1
        return out


def test_dense_scores_the_mean_over_document_windows_of_each_individuals_best_window(tmp_path, monkeypatch):
    from workbench.metrics.backends import embedders
    from workbench.privacy.reid_attacks import dense
    from workbench.privacy.reid_attacks.attackers import make_attacker
    from workbench.privacy.reid_attacks.background import load_background
    monkeypatch.setattr(dense, "make_embedder", lambda spec, **kw: FirstWordEmbedder())
    monkeypatch.setattr(embedders, "default_cache_path", lambda kind: tmp_path / f"{kind}.sqlite")
    pad = " x" * 7  # windows of 8 words: a word then seven fillers
    path = tmp_path / "bk.json"
    path.write_text(json.dumps({"A": "alpha" + pad + " beta" + pad, "B": "gamma" + pad,
                                "C": "delta" + pad + " alpha" + pad}), encoding="utf-8")
    attacker = make_attacker("retrieval-dense", load_background(path), {"embedder": "test", "window": "8"}, "en")
    scores = attacker.scores(["alpha" + pad + " beta" + pad + " gamma" + pad])[0]
    # Document windows alpha, beta, gamma; A's best: 1, 1, 0; B's: 0, 0, 1; C's (its 2nd window): 1, 0, 0.
    np.testing.assert_allclose(scores, [2 / 3, 1 / 3, 1 / 3], atol=1e-6)
    assert attacker.describe()["embedder"] == "test:first-word" and attacker.describe()["window"] == 8


def test_the_new_attackers_are_listed_and_keep_the_old_retrieval_key(tmp_path):
    from workbench.privacy.reid_attacks.attackers import ATTACKERS, make_attacker
    from workbench.privacy.reid_attacks.background import load_background
    from workbench.privacy.reid_attacks.reid_contract import attack_key
    assert set(NEW_ATTACKERS) <= set(ATTACKERS) and list(ATTACKERS[:2]) == ["retrieval", "trained"]
    bk = load_background(background(tmp_path / "bk.json"))
    keys = {name: attack_key(make_attacker(name, bk, {}, "en")) for name in ("retrieval", *NEW_ATTACKERS)}
    assert len(set(keys.values())) == 4 and all(keys[n].startswith(f"{n}-") for n in keys)
    fused = make_attacker("retrieval-fused", bk, {}, "en").describe()
    assert fused["rrf_k"] == 60 and fused["retrieval-ids"]["tokens"] == "identifiers-1"
    assert "MiniLM" in fused["retrieval-dense"]["embedder"]  # English: the metrics' MiniLM


# The dense parts load MiniLM (10-20 s on two busy cores) unless the embeddings cache has the texts.
@pytest.mark.parametrize("attacker", ["retrieval-ids", *(pytest.param(a, marks=pytest.mark.slow)
                                                         for a in ("retrieval-dense", "retrieval-fused"))])
def test_each_new_attacker_runs_through_the_cli_on_a_tiny_store(store, tmp_path, attacker):
    from tests.helpers.entry_point import WORKBENCH
    c = corpus()
    original = write_run(store, c, "original", lambda s: s.text)
    suppress = write_run(store, c, "suppress", lambda s: "")
    bk = background(tmp_path / "bk.json")
    done = subprocess.run([WORKBENCH, "privacy", "reid", original[:10], suppress[:10], "--attacker", attacker,
                           "--background", str(bk), "--store", str(store.path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    rows = {line.split()[0]: line.split() for line in done.stdout.splitlines() if line[:12] in
            (original[:12], suppress[:12])}
    assert rows[original[:12]][3:5] == [attacker, "1.000"]  # every original document re-identified
    assert float(rows[suppress[:12]][4]) <= 0.2  # suppressed: five copies of one text, at most one right
    stored = store.db.execute("SELECT COUNT(*), MIN(attack_key) FROM reid_results WHERE attacker=?",
                              (attacker,)).fetchone()
    assert stored[0] == 10 and stored[1].startswith(f"{attacker}-")
