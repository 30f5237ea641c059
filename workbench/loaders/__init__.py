"""Corpus loaders: each reads one file format into a validated Corpus.

Shipped corpora are named in workbench.loaders.shipped; any other file is loaded by
format with load_corpus(path, format=...).
"""

from workbench.loaders.shipped import SHIPPED, load_corpus, shipped_corpus

__all__ = ["SHIPPED", "load_corpus", "shipped_corpus"]
