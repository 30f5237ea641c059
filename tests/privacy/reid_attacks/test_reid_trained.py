"""The trained (TRI) attacker's mechanics on a tiny untrained BERT: windows, classes, training, cache, scoring."""

from __future__ import annotations

import json
import math

import pytest

from tests.privacy.reid_helpers import BACKGROUND_TEMPLATE, PEOPLE, background, corpus, write_run
from workbench.infra.errors import WorkbenchError

pytest.importorskip("transformers")


def _config(tiny_bert, **changes):
    from workbench.privacy.reid_attacks.trained import TrainedConfig
    return TrainedConfig(**{"base_model": str(tiny_bert), "window": 32, "overlap": 8, "epochs": 2.0,
                            "batch_size": 4, **changes})


def test_windows_cover_the_text_each_overlapping_the_one_before(tiny_bert):
    from transformers import AutoTokenizer

    from workbench.privacy.reid_attacks.trained import windows
    tokenizer = AutoTokenizer.from_pretrained(tiny_bert)
    text = " ".join(BACKGROUND_TEMPLATE.format(**p) for p in PEOPLE.values())
    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    got = windows(tokenizer, text, 32, 8)
    assert len(got) > 3 and all(len(w) <= 32 for w in got)
    assert all(w[0] == tokenizer.cls_token_id and w[-1] == tokenizer.sep_token_id for w in got)
    bodies = [w[1:-1] for w in got]
    assert all(a[-8:] == b[:8] for a, b in zip(bodies, bodies[1:]))
    assert bodies[0] + [t for b in bodies[1:] for t in b[8:]] == ids  # every token, in order, once
    assert windows(tokenizer, "Short.", 32, 8) == [tokenizer("Short.")["input_ids"]]


def test_one_class_per_individual_trained_once_then_loaded_from_the_cache(tiny_bert, bk, cache, monkeypatch):
    from transformers import AutoTokenizer

    from workbench.privacy.reid_attacks.trained import TrainedAttacker, windows
    attacker = TrainedAttacker(bk, _config(tiny_bert))
    assert not attacker.is_built
    info = attacker.info()  # trains
    model, _ = attacker._load()
    assert model.head.out_features == 6 and info["individuals"] == list(bk.individuals)
    tokenizer = AutoTokenizer.from_pretrained(tiny_bert)
    n_windows = sum(len(windows(tokenizer, t, 32, 8)) for t in bk.texts)
    assert info["windows"] == n_windows and info["steps"] == math.ceil(2 * n_windows / 4)
    assert attacker.model_dir.parent == cache / "privacy"

    def no_training(self, out):
        raise AssertionError("trained again")
    monkeypatch.setattr(TrainedAttacker, "_train", no_training)
    again = TrainedAttacker(bk, _config(tiny_bert))
    assert again.is_built and again.model_dir == attacker.model_dir
    assert again.scores(["The applicant, Teodor Vancea, lives in Timișoara."]).shape == (1, 6)
    assert not TrainedAttacker(bk, _config(tiny_bert, seed=1)).is_built  # another setting, another model


def test_a_document_scores_the_sum_of_its_windows_logits(tiny_bert, bk, cache):
    import numpy as np
    import torch

    from workbench.privacy.reid_attacks.trained import TrainedAttacker, windows
    # float32: this checks the summing; in bfloat16 a window's logits depend on its batch in the last bits.
    attacker = TrainedAttacker(bk, _config(tiny_bert, epochs=0.5, dtype="float32"))
    text = " ".join(corpus().document(d).text for d in ("doc-a", "doc-b"))
    summed = attacker.scores([text, "Short."], batch_windows=3)  # windows of two texts share batches
    model, tokenizer = attacker._load()
    with torch.inference_mode():
        one_by_one = sum(model(torch.tensor([w]), torch.ones(1, len(w), dtype=torch.long))[0].double().numpy()
                         for w in windows(tokenizer, text, 32, 8))
    assert len(windows(tokenizer, text, 32, 8)) > 3
    np.testing.assert_allclose(summed[0], one_by_one, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(summed[1], attacker.scores(["Short."])[0], rtol=1e-4, atol=1e-4)


def test_probe_then_fine_tuning_lower_the_loss_and_masked_lm_pretraining_runs_first(tiny_bert, bk, cache):
    from workbench.privacy.reid_attacks.trained import TrainedAttacker
    settings = dict(epochs=20.0, batch_size=8, head_learning_rate=1e-2, learning_rate=1e-3, pretrain_epochs=1.0)
    info = TrainedAttacker(bk, _config(tiny_bert, **settings)).info()
    first, last = info["probe"]["loss_first_last"]
    assert last < first and info["probe"]["steps"] == 300
    first, last = info["loss_first_last"]
    assert last < first / 2
    assert info["pretrain"]["steps"] == math.ceil(info["windows"] / 8)
    assert not (TrainedAttacker(bk, _config(tiny_bert, **settings)).model_dir / "mlm").exists()


def test_the_probe_alone_makes_a_classifier(tiny_bert, bk, cache):
    from workbench.privacy.reid_attacks.trained import TrainedAttacker
    attacker = TrainedAttacker(bk, _config(tiny_bert, epochs=0.0))
    info = attacker.info()
    assert info["steps"] == 0 and info["probe"]["train_accuracy"] > 1 / 6
    assert attacker.scores(["Halvard Quist"]).shape == (1, 6)


def test_reid_risk_with_the_trained_attacker_stores_its_rows(tiny_bert, store, tmp_path, cache):
    from workbench.privacy.reid_attacks.reid import reid_documents, reid_risk
    c = corpus()
    run = write_run(store, c, "original", lambda s: s.text)
    options = {"base_model": str(tiny_bert), "window": "32", "overlap": "8", "epochs": "1", "batch_size": "4"}
    row = reid_risk(store, [run], attacker="trained", background=background(tmp_path / "bk.json"),
                    config=options).iloc[0]
    assert row.attacker == "trained" and row.attack_key.startswith("trained-") and row.complete
    assert (row.n_documents, row.n_candidates) == (5, 6) and 0 <= row.trir <= 1 and 1 <= row.mean_rank <= 6
    docs = reid_documents(store, run)
    assert set(docs.top_guess) <= set(PEOPLE) | {"doc-z"}
    stored = json.loads(store.db.execute("SELECT config FROM reid_results LIMIT 1").fetchone()[0])
    assert stored["window"] == 32 and stored["base_model"] == str(tiny_bert) and len(stored["base_weights"]) == 16


@pytest.mark.parametrize("changes, message", [
    ({"overlap": 30}, "overlap must be"),
    ({"epochs": 0.0, "probe_steps": 0}, "nothing would train"),
    ({"epochs": -1.0}, "must be at least 0"),
    ({"window": 4}, "window must be at least 8"),
])
def test_bad_settings_are_refused(tiny_bert, changes, message):
    with pytest.raises(WorkbenchError, match=message):
        _config(tiny_bert, **changes)


def test_a_window_longer_than_the_model_takes_is_refused(tiny_bert, bk, cache):
    from workbench.privacy.reid_attacks.trained import TrainedAttacker
    with pytest.raises(WorkbenchError, match="window 100 is longer than the base model's limit \\(64"):
        TrainedAttacker(bk, _config(tiny_bert, window=100)).build()


def test_a_base_model_that_cannot_be_found_names_the_way_out(bk, tmp_path, monkeypatch):
    from workbench.privacy.reid_attacks.trained import TrainedAttacker
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(WorkbenchError, match="base_model=offline"):
        TrainedAttacker(bk, _config(tmp_path / "no-such-model"))


def test_the_build_message_names_the_cache_folder_not_the_temporary_one(tiny_bert, bk, cache):
    """Issue 24 item 21: it said "cached at trained-….partial", a folder renamed a moment later."""
    from workbench.privacy.reid_attacks.trained import TrainedAttacker
    said = []
    attacker = TrainedAttacker(bk, _config(tiny_bert, epochs=0.5), log=said.append)
    attacker.build()
    built = [line for line in said if "trained attacker built" in line]
    assert len(built) == 1 and built[0].endswith(f"cached at {attacker.model_dir}"), said
    assert ".partial" not in built[0] and attacker.model_dir.is_dir()
