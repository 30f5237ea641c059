"""Fixtures of the privacy tests.

The inference attack's plumbing (stored and reused guesses, resumption, batching, the CLI) runs
on tiny models in a cache folder of the test's own: the tiny masked LMs of tests/conftest.py as
the `offline` models and tiny lemmatisers (tests/tiny_models.py), built in seconds. What needs the
trained models' output (the matching function's lemmas: test_matching_golden.py,
test_matching_lemmatiser.py, test_matching_titles.py) builds the real lemmatisers
(inference_helpers.built_lemmatiser).
"""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def tiny_lemmatisers(tmp_path_factory):
    """lang -> a tiny trained spaCy lemmatiser pipeline (tests/tiny_models.py), built once per session."""
    from tiny_models import build_tiny_lemmatiser
    return {lang: build_tiny_lemmatiser(tmp_path_factory.mktemp(f"tiny-lemmatiser-{lang}"), lang)
            for lang in ("en", "sv")}


def _fresh_lemmatisers():
    from workbench.privacy.lemmatiser import lemmatiser
    lemmatiser.cache_clear()  # loaded once per process by language: never the other cache's


@pytest.fixture
def tiny_lemmatiser_cache(tmp_path, monkeypatch, tiny_lemmatisers):
    """A cache folder of this test's own (WORKBENCH_CACHE, inherited by the CLI it starts) whose
    lemmatisers are the tiny ones."""
    from tiny_models import install_tiny
    cache = tmp_path / "cache"
    monkeypatch.setenv("WORKBENCH_CACHE", str(cache))
    install_tiny(lemmatisers=tiny_lemmatisers)
    _fresh_lemmatisers()
    yield cache
    _fresh_lemmatisers()


@pytest.fixture
def tiny_cache(tiny_lemmatiser_cache, tiny_bert, tiny_roberta_sv):
    """tiny_lemmatiser_cache whose `offline` masked LMs are also tiny: en = tiny BERT, sv = tiny RoBERTa."""
    from tiny_models import install_tiny
    install_tiny(mlms={"en": tiny_bert, "sv": tiny_roberta_sv})
    return tiny_lemmatiser_cache
