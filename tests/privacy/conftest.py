"""Fixtures of the privacy tests.

The inference attack's plumbing (stored and reused guesses, resumption, batching, the CLI) runs
on tiny models in a cache folder of the tests' own: the tiny masked LMs of tests/conftest.py as
the `offline` models and tiny lemmatisers (tests/helpers/tiny_models.py), built in seconds. What needs the
trained models' output (the matching function's lemmas: test_matching_golden.py,
test_matching_lemmatiser.py) builds the real lemmatisers (inference_helpers.built_lemmatiser).
"""

from __future__ import annotations

from functools import lru_cache

import pytest


@pytest.fixture(scope="session")
def tiny_lemmatisers(tmp_path_factory):
    """lang -> a tiny trained spaCy lemmatiser pipeline (tests/helpers/tiny_models.py), built once per session."""
    from tests.helpers.tiny_models import build_tiny_lemmatiser
    return {lang: build_tiny_lemmatiser(tmp_path_factory.mktemp(f"tiny-lemmatiser-{lang}"), lang)
            for lang in ("en", "sv")}


def _tiny_cache_folder(tmp_path_factory, name: str, **models):
    """A cache folder holding the given tiny models where the set-up's would be (tests/helpers/tiny_models.py)."""
    from tests.helpers.tiny_models import install_tiny
    folder = tmp_path_factory.mktemp(name)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("WORKBENCH_CACHE", str(folder))
        install_tiny(**models)
    return folder


@pytest.fixture(scope="session")
def _tiny_lemmatiser_folder(tmp_path_factory, tiny_lemmatisers):
    return _tiny_cache_folder(tmp_path_factory, "tiny-lemmatiser-cache", lemmatisers=tiny_lemmatisers)


@pytest.fixture(scope="session")
def _tiny_folder(tmp_path_factory, tiny_lemmatisers, tiny_bert, tiny_roberta_sv):
    return _tiny_cache_folder(tmp_path_factory, "tiny-cache", lemmatisers=tiny_lemmatisers,
                              mlms={"en": tiny_bert, "sv": tiny_roberta_sv})


@lru_cache(maxsize=4)
def _tiny_lemmatiser(lang: str):
    """workbench.privacy.inference_attacks.lemmatiser_build.lemmatiser while a tiny cache is the cache: loaded once
    per session (its lexicon takes seconds), while the real one keeps its own cache for the other tests."""
    from workbench.privacy.inference_attacks.lemmatiser import lemmatiser_path, load_lemmatiser
    return load_lemmatiser(lemmatiser_path(lang), lang)


def _use(folder, monkeypatch):
    monkeypatch.setenv("WORKBENCH_CACHE", str(folder))  # inherited by the CLI a test starts
    monkeypatch.setattr("workbench.privacy.inference_attacks.lemmatiser_build.lemmatiser", _tiny_lemmatiser)
    return folder


@pytest.fixture
def tiny_lemmatiser_cache(_tiny_lemmatiser_folder, monkeypatch):
    """The cache folder (WORKBENCH_CACHE, inherited by the CLI a test starts) is one whose lemmatisers
    are tiny, shared by the tests that ask for it (its caches of tags and frequent lemmas warm up)."""
    return _use(_tiny_lemmatiser_folder, monkeypatch)


@pytest.fixture
def tiny_cache(_tiny_folder, monkeypatch):
    """As tiny_lemmatiser_cache, and its `offline` masked LMs are tiny: en = tiny BERT, sv = tiny RoBERTa."""
    return _use(_tiny_folder, monkeypatch)


# The trained attackers' tests (test_reid_trained.py, test_reid_trained_minilm.py).
@pytest.fixture
def cache(tmp_path, monkeypatch):
    """Each test trains into its own cache, so a cache hit is one this test made."""
    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture
def bk(tmp_path):
    """The reid helpers' background knowledge, loaded."""
    from tests.privacy.reid_helpers import background
    from workbench.privacy.reid_attacks.background import load_background
    return load_background(background(tmp_path / "bk.json"))
