"""Which causal LM the perplexity metrics fine-tune (workbench/causal_lm/loading.py): a local
directory as given, `offline` for the set-up's stand-in, the users' default distilgpt2 falling
back to the stand-in (said on stderr and in the caption), anything else one line naming the ways
out; and `workbench mlm build-causal-lm` reusing a built stand-in."""

from __future__ import annotations

import json

import pytest

from tests.helpers.entry_point import wb_ok
from workbench.causal_lm import loading
from workbench.causal_lm.loading import DEFAULT_CAUSAL_LM, describe, resolve_causal_lm
from workbench.infra.errors import WorkbenchError
from workbench.metrics import MetricConfig


@pytest.fixture
def empty_caches(tmp_path, monkeypatch):
    """No Hugging Face model and no stand-in: a fresh workbench cache and HF cache."""
    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    resolve_causal_lm.cache_clear()
    yield tmp_path
    resolve_causal_lm.cache_clear()


def fake_standin():
    """A stand-in directory marked built (build.json): what the resolver looks for."""
    from workbench.causal_lm.standin import BUILD_FILE, standin_dir
    path = standin_dir()
    path.mkdir(parents=True)
    (path / BUILD_FILE).write_text(json.dumps({"steps_run": 300, "train_seconds": 1.0, "pud_perplexity": {}}))
    return path


def test_a_local_directory_is_used_as_given(empty_caches):
    model = empty_caches / "my-lm"
    model.mkdir()
    (model / "config.json").write_text("{}")
    resolved = resolve_causal_lm(str(model))
    assert resolved.path == model.resolve() and resolved.note == ""
    assert resolved.identity.startswith(f"{model}:")
    assert describe(str(model)) == str(model)


def test_the_default_falls_back_to_a_built_standin_and_says_so(empty_caches, capsys):
    path = fake_standin()
    resolved = resolve_causal_lm(DEFAULT_CAUSAL_LM)
    assert resolved.path == path and "stand-in" in resolved.note
    assert "distilgpt2 is not in the local Hugging Face cache" in capsys.readouterr().err
    # The number format injected, not read from the machine: dtype=auto ends the caption in
    # |dtype=bfloat16 where bfloat16 is faster (issue 36).
    assert MetricConfig(dtype="float32").describe().endswith(f"|causal_lm={path.name} (stand-in for distilgpt2)")
    assert resolve_causal_lm("offline").path == path and resolve_causal_lm("offline").note == ""


def test_a_missing_model_is_one_line_naming_the_ways_out(empty_caches):
    with pytest.raises(WorkbenchError) as missing:
        resolve_causal_lm("someone/gpt-large")
    assert "\n" not in str(missing.value) and "--causal-lm PATH" in str(missing.value)
    assert describe(DEFAULT_CAUSAL_LM).endswith("(stand-in for distilgpt2, not built)")
    assert describe("someone/gpt-large") == "someone/gpt-large (not found)"


def test_the_default_builds_the_standin_on_first_use_and_says_what_it_costs(empty_caches, monkeypatch, capsys):
    # No set-up step builds the stand-in (issue 36): the first report that needs it does, once. The
    # training itself is replaced by writing a marked folder (training takes minutes, covered by the slow tier).
    from workbench.causal_lm import standin_build
    trained = []

    def train(recipe, out):
        trained.append(out)
        return {"steps_run": recipe.steps, "pud_perplexity": {}}
    monkeypatch.setattr(standin_build, "train_standin", train)
    resolved = resolve_causal_lm(DEFAULT_CAUSAL_LM)
    err = capsys.readouterr().err
    assert len(trained) == 1 and (resolved.path / "build.json").is_file()
    assert "building the causal-LM stand-in" in err and "about a minute on 2 idle cores, once" in err
    resolve_causal_lm.cache_clear()
    assert resolve_causal_lm(DEFAULT_CAUSAL_LM).path == resolved.path and len(trained) == 1  # built once


def test_a_model_in_the_hugging_face_cache_is_used(empty_caches, monkeypatch):
    snapshot = empty_caches / "hf" / "snapshot"
    snapshot.mkdir(parents=True)
    monkeypatch.setattr(loading, "_hub_cache", lambda ref: snapshot if ref == DEFAULT_CAUSAL_LM else None)
    resolved = resolve_causal_lm(DEFAULT_CAUSAL_LM)
    assert resolved.path == snapshot and resolved.note == ""
    assert describe(DEFAULT_CAUSAL_LM) == DEFAULT_CAUSAL_LM


def test_build_causal_lm_reuses_a_built_standin(empty_caches, monkeypatch):
    path = fake_standin()
    out = wb_ok("mlm", "build-causal-lm")  # the environment (WORKBENCH_CACHE) is inherited
    assert f"causal-LM stand-in: {path} (steps 300" in out
