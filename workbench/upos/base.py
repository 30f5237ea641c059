"""The tagger interface: UPOS of character ranges in texts.

The UPOS of a range is that of its right-most word (003 §4: multi-word PII take the tag
of their right-most constituent), where a word is a token not tagged PUNCT or SYM: for
`Unheard Voice (Ohörd röst)` the right-most token is `)`, and asking the UPOS filter for
PUNCT puts a quotation mark in place of a title. A range made only of punctuation and
symbols keeps its right-most token's tag. Backends implement `_tag_texts` only; caching
and range mapping live here, once.
"""

from __future__ import annotations

import hashlib
import json
from abc import ABC, abstractmethod
from bisect import bisect_left
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from workbench.store.cache import KeyValueCache
from workbench.text.punctuation import NON_WORD_UPOS, is_punctuation_only  # noqa: F401 (upos's own names too)

# A tagged text: (token start, token end, UPOS) for every token.
Tokens = list[tuple[int, int, str]]


# The span rule as tagger names record it (Tagger.name), so a run, and the originals' tags
# the store keeps per tagger name, never mix two rules: "right-most word" since issue 24
# (003's right-most token before it, recorded without this field).
SPAN_RULE = "last-word"


def right_most_upos(tokens: Tokens, start: int, end: int, starts: Sequence[int] | None = None) -> str | None:
    """UPOS of the last word (token not tagged PUNCT or SYM) overlapping [start, end); the
    last token's when every overlapping token is punctuation; None if no token overlaps.

    Tokens are in text order and do not overlap, so the last token starting before `end` is
    found by bisection, and the walk left stops at the first word; pass `starts` (the token
    starts) when asking many times.
    """
    n = right_most_word(tokens, start, end, starts)
    return None if n is None else tokens[n][2]


def right_most_word(tokens: Sequence[tuple], start: int, end: int, starts: Sequence[int] | None = None) -> int | None:
    """Index of the token right_most_upos reads: tokens are (start, end, UPOS, ...) tuples, so
    the morphological features of the same word are found by the same rule."""
    if starts is None:
        starts = [t[0] for t in tokens]
    last = bisect_left(starts, end) - 1
    if last < 0 or tokens[last][1] <= start:
        return None
    for n in range(last, -1, -1):
        if tokens[n][1] <= start:  # left the range: every token in it was punctuation
            break
        if tokens[n][2] not in NON_WORD_UPOS:
            return n
    return last


class TagCache(KeyValueCache[Tokens]):
    """(tagger id, lang, text) -> tokens, in the table `tags` of its own file (JSON text)."""

    def __init__(self, path: Path | None) -> None:
        super().__init__(path, table="tags", value_column="tokens", value_type="TEXT", timeout=30,
                         encode=json.dumps, decode=lambda text: [tuple(t) for t in json.loads(text)])

    @staticmethod
    def key(tagger: str, lang: str, text: str) -> str:
        return hashlib.sha256(f"{tagger}\0{lang}\0{text}".encode()).hexdigest()


class Tagger(ABC):
    """Subclasses set `backend` ("family:details", e.g. "spacy:en=en_ud_upos,sv=sv_ud_upos")
    before calling this __init__, and implement `_tag_texts`.

    `name` (recorded in run signatures, and the key of the originals' tags in the store) is
    the backend plus the span rule, so runs tagged under 003's right-most-token rule keep
    their ids and tags and are never resumed under the new rule. The token cache is keyed
    on the backend alone: tokens do not depend on the span rule.
    """

    # The backend's registry name (workbench.upos.factory.BACKENDS), the first part of `backend`.
    family: ClassVar[str] = ""
    backend: str
    name: str

    def __init__(self, cache_path: Path | None = None) -> None:
        if not getattr(self, "backend", None):  # a subclass that names itself in `name` only
            self.backend = self.name
        self.name = with_span_rule(self.backend)
        self.cache = TagCache(cache_path)

    @abstractmethod
    def _tag_texts(self, lang: str, texts: Sequence[str]) -> list[Tokens]:
        """Tokenise and tag each text."""

    def tag_texts(self, lang: str, texts: Sequence[str]) -> list[Tokens]:
        keys = [TagCache.key(self.backend, lang, t) for t in texts]
        found = self.cache.get_many(list(dict.fromkeys(keys)))
        todo = list(dict.fromkeys(t for t, k in zip(texts, keys) if k not in found))
        if todo:
            fresh = dict(zip((TagCache.key(self.backend, lang, t) for t in todo), self._tag_texts(lang, todo)))
            self.cache.put_many(fresh)
            found.update(fresh)
        return [found[k] for k in keys]

    def tag_ranges(self, lang: str, items: Sequence[tuple[str, int, int]]) -> list[str | None]:
        """UPOS of each (text, start, end), batched over all texts.

        Each distinct text is tagged (and hashed for the cache) once, however many ranges
        it holds: a document with 200,000 spans is one text, not 200,000.
        """
        texts = list(dict.fromkeys(text for text, _, _ in items))
        tagged = {}
        for text, tokens in zip(texts, self.tag_texts(lang, texts)):
            tagged[text] = (tokens, [a for a, _, _ in tokens])
        return [right_most_upos(tagged[text][0], a, b, tagged[text][1]) for text, a, b in items]


def with_span_rule(backend: str) -> str:
    """The tagger name: "family:details" with `span=<SPAN_RULE>` as one more detail, so the
    family stays before the first colon (metric contexts pick a tagger by it)."""
    return f"{backend}{',' if ':' in backend else ':'}span={SPAN_RULE}"
