"""Taggers by name (workbench.upos.factory): the backends are a plug-in kit registry, and a
process keeps one tagger per backend, so its models load once."""

from __future__ import annotations

import pytest

from workbench.infra.errors import InvalidValue
from workbench.upos.factory import BACKENDS, TAGGERS, LoadedTaggers, get_tagger


def test_the_choices_are_auto_and_the_registered_backends():
    assert TAGGERS == ("auto", "stanza", "spacy") and BACKENDS.names() == TAGGERS[1:]


def test_a_backend_is_made_once_per_process_and_once_per_cache():
    assert get_tagger("spacy", quiet=True) is get_tagger("spacy", quiet=True)
    own = LoadedTaggers()
    assert own.get("spacy") is own.get("spacy") and own.get("spacy") is not get_tagger("spacy", quiet=True)
    assert type(own.get("spacy")).__name__ == "SpacyTagger"


def test_an_unknown_tagger_names_the_nearest():
    with pytest.raises(InvalidValue, match=r"unknown tagger 'spacey'; did you mean 'spacy'\?"):
        get_tagger("spacey")
