"""UPOS tagging behind one interface, with a persistent cache.

Two backends: stanza (the users' default, as in 003; its models come from a hub) and
spaCy with the UD taggers in ../shared/models (what runs offline here). `auto` takes
stanza when its model for the language is installed, else spaCy, and says which.
"""

from workbench.upos.base import NON_WORD_UPOS, Tagger, is_punctuation_only, right_most_upos
from workbench.upos.factory import get_tagger

__all__ = ["NON_WORD_UPOS", "Tagger", "get_tagger", "is_punctuation_only", "right_most_upos"]
