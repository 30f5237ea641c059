"""Choosing a tagger by name: auto | stanza | spacy."""

from __future__ import annotations

import sys

from workbench.errors import WorkbenchError
from workbench.paths import cache_dir
from workbench.upos.base import Tagger

TAGGERS = ("auto", "stanza", "spacy")
_instances: dict[str, Tagger] = {}


def get_tagger(name: str = "auto", *, langs: tuple[str, ...] = ("en", "sv"), quiet: bool = False) -> Tagger:
    """One shared instance per backend (models load once per process)."""
    if name not in TAGGERS:
        raise WorkbenchError(f"unknown tagger {name!r} (known: {', '.join(TAGGERS)})")
    if name == "auto":
        from workbench.upos.stanza_backend import stanza_available
        name = "stanza" if all(stanza_available(lang) for lang in langs) else "spacy"
        if name == "spacy" and not quiet:
            print("UPOS tagger: stanza models are not installed here; using the offline spaCy UD taggers "
                  "(../shared/models/{en,sv}_ud_upos)", file=sys.stderr)
    if name not in _instances:
        cache = cache_dir() / "upos-tags.sqlite"
        if name == "stanza":
            from workbench.upos.stanza_backend import StanzaTagger
            _instances[name] = StanzaTagger(cache)
        else:
            from workbench.upos.spacy_backend import SpacyTagger
            _instances[name] = SpacyTagger(cache_path=cache)
    return _instances[name]
