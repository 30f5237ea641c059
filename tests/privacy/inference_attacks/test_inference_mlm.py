"""The masked-LM inference attack on the tiny corpus (deterministic): every replaced span attacked once
and stored, reused and resumed, never shown its original, batched = one at a time. Plumbing, so `offline`
names tiny untrained masked LMs and the lemmatisers are tiny ones (tiny_cache, tests/privacy/conftest.py)."""

from __future__ import annotations

import dataclasses

import pytest

from tests.privacy.inference_helpers import reference_runs

OFFLINE = {"model": "offline"}


@pytest.fixture
def runs(store, tiny_corpus, tiny_cache):
    from workbench.pipeline import generate_run
    ids = reference_runs(store, tiny_corpus)
    ids["random"] = generate_run(tiny_corpus, "random", options={"mode": "maskL"}, store=store, tagger="spacy",
                                 quiet_tagger=True, progress=False).run_id
    return ids


def n_spans(corpus) -> int:
    return sum(len(d.masked_spans) for d in corpus.documents)


def test_every_replaced_span_is_attacked_once_stored_and_reused(store, tiny_corpus, runs, monkeypatch):
    from workbench.privacy.inference_attacks.inference import inference_disclosure
    from workbench.privacy.inference_attacks.inference_mlm import MlmAttacker
    from workbench.privacy.inference_attacks.inference_store import rows_frame

    frame = inference_disclosure(store, list(runs.values()), config=OFFLINE, n=5)
    assert list(frame["run_id"]) == list(runs.values())  # in the order asked for
    assert set(frame["spans"]) == {n_spans(tiny_corpus)} and set(frame["missing"]) == {0}
    rows = rows_frame(store)
    assert len(rows) == len(runs) * n_spans(tiny_corpus)
    assert all(1 <= len(g) <= 5 and len({x.lower() for x in g}) == len(g) for g in rows["guesses"])
    assert set(rows["attack_key"]) == set(frame["attack_key"]) and len(set(frame["attack_key"])) == 1

    # asked again: everything is stored, so nothing is guessed and nothing rewritten
    monkeypatch.setattr(MlmAttacker, "guess", lambda self, targets: pytest.fail("attacked a stored span"))
    again = inference_disclosure(store, list(runs.values()), config=OFFLINE, n=5)
    assert again.equals(frame)
    assert rows_frame(store)["created"].tolist() == rows["created"].tolist()


def test_disclosure_orders_the_reference_runs(store, runs):
    from workbench.privacy.inference_attacks.inference import inference_disclosure
    frame = inference_disclosure(store, list(runs.values()), config=OFFLINE).set_index("run_id")
    original, suppress, label = (frame.loc[runs[k]] for k in ("original", "suppress", "label"))
    # an attacker reading the original document reads every original
    assert original["disclosure"] == original["disclosure_replacement"] == 1.0
    # nothing is left to read in a suppressed span; entity types are never the span's words here
    assert suppress["disclosure_replacement"] == 0.0 and label["disclosure_replacement"] == 0.0
    assert suppress["disclosure"] == suppress["disclosure_guesses"] < 1.0
    for _, r in frame.iterrows():
        assert max(r["disclosure_guesses"], r["disclosure_replacement"]) <= r["disclosure"] <= 1.0


def test_per_label_rates_are_the_share_of_each_labels_spans(store, tiny_corpus, runs):
    from workbench.privacy.inference_attacks.inference import inference_disclosure, inference_spans, stored_disclosure
    inference_disclosure(store, [runs["random"], runs["original"]], config=OFFLINE)
    by_label = stored_disclosure(store, [runs["random"], runs["original"]], by_label=True)
    labels = {s.label for d in tiny_corpus.documents for s in d.spans}
    spans = inference_spans(store, [runs["random"]])
    for run_id in (runs["random"], runs["original"]):
        mine = by_label[by_label["run_id"] == run_id]
        assert set(mine["label"]) == labels and mine["spans"].sum() == n_spans(tiny_corpus)
    for label in labels:  # counted by hand from the per-span rows
        rows = [r for r in spans.itertuples() if r.label == label]
        expected = sum(r.disclosed or r.replacement_discloses for r in rows) / len(rows)
        got = by_label[(by_label["run_id"] == runs["random"]) & (by_label["label"] == label)]
        assert got["disclosure"].item() == pytest.approx(expected)


def test_the_attacker_never_sees_the_original(store, tiny_corpus, runs, monkeypatch):
    from workbench.privacy.inference_attacks.inference import inference_disclosure
    from workbench.privacy.inference_attacks.inference_contract import Target
    from workbench.privacy.inference_attacks.inference_mlm import MlmAttacker

    assert "original" not in {f.name for f in dataclasses.fields(Target)}
    seen = []
    real = MlmAttacker.guess
    monkeypatch.setattr(MlmAttacker, "guess", lambda self, targets: seen.extend(targets) or real(self, targets))
    inference_disclosure(store, [runs["suppress"], runs["label"]], config=OFFLINE)
    docs = {d.doc_id: d for d in tiny_corpus.documents}
    for t in seen:
        _, doc_id, index = t.key.split("|")
        doc, span = docs[doc_id], docs[doc_id].spans[int(index)]
        if t.start == t.end:  # suppress: the document with every span removed
            cut, cursor = [], 0
            for s in doc.spans:
                cut.append(doc.text[cursor:s.start])
                cursor = s.end
            assert t.text == "".join(cut) + doc.text[cursor:]
        else:  # label: the span's type stands where it was
            assert t.replacement == span.label
        assert span.text not in t.text  # no mention of any span survives either run
    assert len(seen) == 2 * n_spans(tiny_corpus)


def test_guesses_do_not_depend_on_the_batch(tmp_path, tiny_corpus, tiny_cache):
    from workbench.privacy.inference_attacks.inference import inference_disclosure
    from workbench.privacy.inference_attacks.inference_store import rows_frame
    from workbench.store import RunStore
    guesses = []
    for name, size in (("batched", 32), ("one", 1)):
        with RunStore(tmp_path / f"{name}.sqlite") as s:
            ids = reference_runs(s, tiny_corpus, kinds=("label",))
            inference_disclosure(s, list(ids.values()), config={**OFFLINE, "batch_size": size})
            guesses.append(rows_frame(s)[["doc_id", "span_index", "guesses", "attack_key"]])
    assert guesses[0].equals(guesses[1])  # batch_size is not part of the key either


def test_an_interrupted_attack_resumes_without_loss_or_duplicates(store, tiny_corpus, runs, monkeypatch):
    from workbench.privacy.inference_attacks.inference import inference_disclosure
    from workbench.privacy.inference_attacks.inference_mlm import MlmAttacker
    from workbench.privacy.inference_attacks.inference_store import rows_frame

    real, calls = MlmAttacker.guess, []

    def dies_on_second_batch(self, targets):
        calls.append(len(targets))
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(self, targets)

    monkeypatch.setattr(MlmAttacker, "guess", dies_on_second_batch)
    with pytest.raises(KeyboardInterrupt):
        inference_disclosure(store, [runs["random"]], config=OFFLINE, batch=4)
    first = rows_frame(store)
    assert len(first) == 4  # the first batch, whole
    monkeypatch.setattr(MlmAttacker, "guess", real)
    frame = inference_disclosure(store, [runs["random"]], config=OFFLINE, batch=4)
    rows = rows_frame(store)
    assert len(rows) == n_spans(tiny_corpus) == frame["spans"].item()
    assert not rows.duplicated(["doc_id", "span_index"]).any()
    kept = rows.merge(first, on=["doc_id", "span_index"], suffixes=("", "_first"))
    assert (kept["created"] == kept["created_first"]).all()  # stored once, never redone


def test_a_run_that_is_not_complete_is_refused_before_any_attack(store, runs):
    from workbench.infra.errors import WorkbenchError
    from workbench.privacy.inference_attacks.inference import inference_disclosure
    from workbench.privacy.inference_attacks.inference_store import rows_frame
    store.reopen_run(runs["random"])
    with pytest.raises(WorkbenchError, match="not complete"):
        inference_disclosure(store, [runs["original"], runs["random"]], config=OFFLINE)
    assert rows_frame(store).empty


def test_bad_settings_are_refused_by_name(store, runs):
    from workbench.infra.errors import WorkbenchError
    from workbench.privacy.inference_attacks.inference import inference_disclosure
    with pytest.raises(WorkbenchError, match="no option 'contxt_chars'; did you mean 'context_chars'"):
        inference_disclosure(store, [runs["label"]], config={"contxt_chars": "10"})
    with pytest.raises(WorkbenchError, match="unknown inference attacker 'bert'"):
        inference_disclosure(store, [runs["label"]], attacker="bert")
    with pytest.raises(WorkbenchError, match="no run matching 'zzz'"):
        inference_disclosure(store, ["zzz"], config=OFFLINE)


def test_the_attack_key_names_the_offline_model_that_answers(monkeypatch):
    """`offline` is whichever model the recipe builds now: a rebuilt model (another recipe)
    must not reuse the stored guesses of the old one; a hub id keys by its name alone."""
    from workbench.mlm import offline
    from workbench.privacy.inference_attacks.inference_contract import attack_key
    from workbench.privacy.inference_attacks.inference_mlm import MlmAttackConfig, MlmAttacker

    def key(config):
        return attack_key(MlmAttacker(config, 5), {"matcher": 1})

    before = key(MlmAttackConfig(model="offline"))
    hub = key(MlmAttackConfig())
    built = offline.recipe_for
    monkeypatch.setattr(offline, "recipe_for",
                        lambda lang: dataclasses.replace(built(lang), steps=built(lang).steps + 1))
    assert key(MlmAttackConfig(model="offline")) != before
    assert key(MlmAttackConfig()) == hub
