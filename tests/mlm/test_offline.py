"""The offline test MLMs: cached, keyed on recipe + data, loadable, better than chance."""

from __future__ import annotations

import dataclasses
import json
import shutil

import pytest

from workbench.infra.errors import WorkbenchError
from workbench.mlm import offline
from workbench.mlm.recipes import RECIPES


@pytest.mark.slow  # builds the offline English MLM where the cache has none (minutes on 2 cores)
def test_offline_model_is_a_loadable_hf_directory(offline_en):
    from transformers import AutoModelForMaskedLM, AutoTokenizer
    tok = AutoTokenizer.from_pretrained(offline_en)
    model = AutoModelForMaskedLM.from_pretrained(offline_en)
    assert tok.mask_token_id is not None and model.config.vocab_size >= len(tok)
    assert offline.offline_model_path("en") == offline_en  # cached: the same directory, no rebuild


def test_missing_model_names_the_command(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path))
    with pytest.raises(WorkbenchError, match="workbench mlm build-offline --lang sv"):
        offline.offline_model_path("sv")


def test_unknown_language_is_refused():
    with pytest.raises(WorkbenchError, match="no offline MLM"):
        offline.offline_model_path("de")


def test_cache_key_follows_recipe_and_data(tmp_path, monkeypatch):
    recipe = RECIPES["en"]
    before = offline.model_dir("en").name
    for changed in (dataclasses.replace(recipe, steps=recipe.steps + 1), dataclasses.replace(recipe, lr_head=1e-3)):
        monkeypatch.setitem(RECIPES, "en", changed)
        assert offline.model_dir("en").name != before
    monkeypatch.setitem(RECIPES, "en", recipe)
    assert offline.model_dir("en").name == before
    from workbench.mlm.data import ud_train_dir
    copy = tmp_path / "ud-train"
    shutil.copytree(ud_train_dir(), copy)
    target = copy / "en_ewt" / "en_ewt-ud-dev.conllu"
    target.chmod(0o644)
    target.write_text(target.read_text() + "\n# text = One more sentence.\n")
    monkeypatch.setenv("WORKBENCH_UD_TRAIN", str(copy))
    assert offline.model_dir("en").name != before


@pytest.mark.slow
def test_english_model_beats_the_unigram_baseline(offline_en):
    """notes/offline-mlm.md: the unigram-frequency baseline scores 0.083 / 0.240 at @1 / @10 on PUD."""
    pud = json.loads((offline_en / offline.BUILD_FILE).read_text())["pud"]
    assert pud["acc@1"] > 0.083 and pud["acc@10"] > 0.240


@pytest.mark.slow
def test_swedish_model_predicts_whole_swedish_words(offline_sv):
    from workbench.mlm.loading import load_masked_lm
    lm = load_masked_lm(str(offline_sv))
    enc = lm.encode(["Hon föddes i ", 1, " år 1975."])
    words = lm.top_words(lm.logits([enc], [enc.masks[0]])[0][0], 10, True, enc.left[0])
    assert len(words) == 10 and all(w.strip() == w and any(c.isalpha() or c.isdigit() for c in w) for w in words)
    assert lm.table.scheme == "byte-bpe"  # the RoBERTa-style path of the paper's Swedish model
