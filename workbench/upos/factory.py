"""Choosing a tagger by name: auto | stanza | spacy (the backends are a workbench.infra.plugins Registry)."""

from __future__ import annotations

import sys

from workbench.data_model import LANGUAGES
from workbench.infra.paths import cache_dir
from workbench.infra.plugins import Entry, Registry
from workbench.upos.base import Tagger

BACKENDS: Registry[type[Tagger]] = Registry("tagger", [
    Entry("stanza", "workbench.upos.stanza_backend:StanzaTagger",
          "stanza's UD models, the users' default as in 003 (models come from a hub)", extra="stanza"),
    Entry("spacy", "workbench.upos.spacy_backend:SpacyTagger",
          "spaCy with the UD taggers in ../shared/models (runs offline)", extra="spacy"),
])
TAGGERS = ("auto", *BACKENDS.names())  # auto: stanza where its models are installed, else spaCy
DEFAULT_TAGGER = TAGGERS[0]


class LoadedTaggers:
    """The taggers this process has made, one per backend.

    Why a cache: a tagger loads its models on first use (seconds, and hundreds of MB for
    stanza) and keeps them; a process asks for a tagger many times (each run of a benchmark,
    the report's UPOS metrics, an import), and a second instance would load them all again.
    """

    def __init__(self) -> None:
        self._by_backend: dict[str, Tagger] = {}

    def get(self, backend: str) -> Tagger:
        if backend not in self._by_backend:
            tagger_class = BACKENDS.load(backend)
            self._by_backend[backend] = tagger_class(cache_path=cache_dir() / "upos-tags.sqlite")
        return self._by_backend[backend]


LOADED = LoadedTaggers()


def get_tagger(name: str = DEFAULT_TAGGER, *, langs: tuple[str, ...] = LANGUAGES, quiet: bool = False) -> Tagger:
    """The process's tagger of this backend (its models load once per process)."""
    if name == "auto":
        name = _auto_backend(langs, quiet)
    return LOADED.get(name)


def _auto_backend(langs: tuple[str, ...], quiet: bool) -> str:
    from workbench.upos.stanza_backend import stanza_available
    if all(stanza_available(lang) for lang in langs):
        return "stanza"
    if not quiet:
        print("UPOS tagger: stanza models are not installed here; using the offline spaCy UD taggers "
              "(../shared/models/{en,sv}_ud_upos)", file=sys.stderr)
    return "spacy"
