"""Issue 39 item 6: the re-identification attackers on a Swedish corpus, with a background file
the user brings (nothing ships one for Swedish).

Made here from PGV-PII SV as docs/privacy.md tells a user to: each article's first half (up to
the first sentence end after its middle) is the document to protect, with the annotated spans
that lie in it, and the rest of the article is the public text about its individual (doc_id) in
the background file. Ten candidates, one per article; two of the articles are about the same
man (Li Wangyang), so the attacker has something to confuse.
"""

from __future__ import annotations

import json

import pytest

from tests.privacy import reid_helpers

pytest.importorskip("bm25s")


@pytest.fixture(scope="module")
def swedish(tmp_path_factory):
    from workbench.loaders import shipped_corpus
    corpus, rest = reid_helpers.article_halves(shipped_corpus("pgv-pii-sv"))
    path = tmp_path_factory.mktemp("sv-bk") / "pgv_sv_rest.json"
    path.write_text(json.dumps(rest, ensure_ascii=False), encoding="utf-8")
    return corpus, path


@pytest.fixture
def runs(store, swedish):
    corpus, _ = swedish
    return {"original": reid_helpers.write_run(store, corpus, "original", lambda span: span.text),
            "suppress": reid_helpers.write_run(store, corpus, "suppress", lambda span: "")}


def test_the_background_is_made_of_the_rest_of_each_article(swedish):
    corpus, path = swedish
    rest = json.loads(path.read_text(encoding="utf-8"))
    assert len(corpus.documents) == len(rest) == 10 and all(d.lang == "sv" for d in corpus.documents)
    for d in corpus.documents:
        assert d.spans and rest[d.doc_id] and d.text.endswith(". ")
        assert d.text[-40:] not in rest[d.doc_id]  # the halves do not overlap


@pytest.mark.parametrize("attacker", ["retrieval", "retrieval-ids"])
def test_the_retrieval_attackers_reidentify_swedish_documents(store, swedish, runs, attacker):
    from workbench.privacy.reid_attacks.reid import reid_documents, reid_risk
    from workbench.privacy.reid_attacks.reid_store import rows_frame
    from workbench.reports.privacy import privacy_measures
    _, path = swedish
    frame = reid_risk(store, list(runs.values()), attacker=attacker, background=path, k=3).set_index("run_id")
    original = frame.loc[runs["original"]]
    assert original["n_documents"] == 10 and original["n_candidates"] == 10 and original["n_without_background"] == 0
    assert original["trir"] >= 0.8  # chance: 0.1
    stored = rows_frame(store, [runs["original"]])
    assert json.loads(stored["config"].iloc[0])["stopwords"] == "sv"  # the documents' language: Swedish stop words
    rows = reid_documents(store, runs["original"])
    assert set(rows["top_guess"]) <= set(json.loads(path.read_text(encoding="utf-8")))
    measures = privacy_measures(store, list(runs.values()), k=3)
    assert measures.attrs["headline"]["candidates"] == 10 and measures.attrs["headline"]["attackers"] == [attacker]
    assert measures.at[runs["original"], "trir_ensemble"] == pytest.approx(original["trir"])


@pytest.mark.slow
def test_the_trained_attacker_runs_on_swedish_over_a_tiny_model(store, swedish, runs, tiny_roberta_sv, cache):
    """The trained attacker's mechanics on Swedish (a tiny untrained RoBERTa with a Swedish
    tokenizer, as the other trained-attacker tests; about 15 s): every document attacked among the
    ten, the model trained once over the user's background and loaded from the cache for the second run."""
    from workbench.privacy.reid_attacks.reid import reid_documents, reid_risk
    _, path = swedish
    config = {"base_model": str(tiny_roberta_sv), "window": 32, "overlap": 8, "max_windows": 8, "probe_steps": 50}
    frame = reid_risk(store, [runs["original"]], attacker="trained", background=path, k=3, config=config)
    row = frame.iloc[0]
    assert row["n_documents"] == 10 and row["n_candidates"] == 10 and 0 <= row["trir"] <= 1
    models = sorted(p.name for p in (cache / "privacy").glob("trained-*") if p.is_dir())
    assert len(models) == 1  # one model, for this background and these settings
    again = reid_risk(store, [runs["suppress"]], attacker="trained", background=path, k=3, config=config)
    assert again.iloc[0]["attack_key"] == row["attack_key"]
    assert sorted(p.name for p in (cache / "privacy").glob("trained-*") if p.is_dir()) == models  # loaded, not trained
    rows = reid_documents(store, runs["original"])
    assert set(rows["top_guess"]) <= set(json.loads(path.read_text(encoding="utf-8")))
