"""Fixtures of the MTC / SS-MTC tests.

Mechanics (batching, save/reload, the engine) use `tiny_bert` / `tiny_roberta_en` from
tests/conftest.py: untrained two-layer masked LMs with real tokenizers, built in seconds.
`tab_checkpoint`: SS-MTC trained on the offline English MLM (built by
.ci/steps/10-offline-mlm.sh) over a small slice of the TAB training split, for behaviour that needs real words;
built once and cached under
workbench.infra.paths.cache_dir(), keyed on the recipe, the data, the base model and the
source of workbench/emat.
"""

from __future__ import annotations

import dataclasses
import fcntl
import hashlib
import json
from pathlib import Path

import pytest
from mtc_helpers import make_corpus, tiny_recipe

# Small enough to train in well under a minute on 2 cores, large enough that the rows learn.
TAB_VOCAB = dict(min_count=3, sentences_per_phrase=10, max_phrases=60, test_fraction=0.1)
TAB_TRAIN = dict(epochs=30, max_tokens=64)


@pytest.fixture(scope="session")
def mtc_corpus():
    return make_corpus()


@pytest.fixture(scope="session")
def tiny_checkpoint(tiny_bert, tmp_path_factory):
    """SS-MTC over an untrained tiny BERT; phrases = the spans of make_corpus()."""
    from workbench.adapters.mtc.build import build_checkpoint
    out = tmp_path_factory.mktemp("ckpt") / "tiny-ss-mtc"
    build_checkpoint(tiny_recipe(tiny_bert), out, corpus=make_corpus())
    return out


def _emat_source_hash() -> str:
    import workbench.adapters.mtc as emat
    h = hashlib.sha256()
    for f in sorted(Path(emat.__file__).parent.glob("*.py")):
        h.update(f.read_bytes())
    return h.hexdigest()


@pytest.fixture(scope="session")
def tab_checkpoint(offline_en):
    """SS-MTC on the offline English MLM over the TAB training split (cached)."""
    from workbench.adapters.mtc.build import BuildRecipe, VocabularySettings, build_checkpoint
    from workbench.adapters.mtc.train_phrases import TrainSettings
    from workbench.infra.paths import cache_dir
    from workbench.loaders import shipped_corpus
    tab = shipped_corpus("tab-test")
    recipe = BuildRecipe(kind="ss-mtc", base_model=str(offline_en), vocabulary=VocabularySettings(**TAB_VOCAB),
                         train=TrainSettings(**TAB_TRAIN))
    key = hashlib.sha256(json.dumps([dataclasses.asdict(recipe), tab.content_hash, _emat_source_hash()],
                                    sort_keys=True).encode()).hexdigest()[:12]
    path = cache_dir() / "mtc-tests" / f"ss-mtc-tab-{key}"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.parent / f"{path.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (path / "metadata.json").is_file():
            build_checkpoint(recipe, path, corpus=tab)
    return path
