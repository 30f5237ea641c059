"""`retrieval-fused`: BM25 over identifiers and the dense retriever, fused by reciprocal rank (issue 39).

Reciprocal rank fusion (Cormack, Clarke & Büttcher 2009): an individual's fused score for a
document is Σ over the attackers of 1 / (k + rank), its rank under each attacker (1 = best),
k = 60 as in that paper. Ranks, not scores, are added because BM25 scores (unbounded, per query)
and cosines (-1..1) are on no common scale; k damps the difference between the first few ranks,
so an individual both attackers rank high beats one that only one ranks first.

Ties share the best rank of their group (1, 1, 3): individuals an attacker cannot tell apart get
the same share from it, so a query BM25 knows no word of (every score 0, all tied at rank 1)
leaves the order to the dense attacker, and TRIR's ties in expectation stay ties.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from workbench.infra.errors import InvalidValue
from workbench.privacy.reid_attacks.background import Background
from workbench.privacy.reid_attacks.dense import DenseAttacker, DenseConfig
from workbench.privacy.reid_attacks.retrieval import STOPWORD_LANGUAGES, RetrievalConfig
from workbench.privacy.reid_attacks.retrieval_ids import IdRetrievalAttacker

RRF_K = 60  # Cormack et al. 2009's constant


def ranks(scores: np.ndarray) -> np.ndarray:
    """Rank of every individual per row (1 = highest score); ties share the best rank of their group."""
    out = np.empty(scores.shape, dtype=np.int64)
    for row, values in enumerate(np.atleast_2d(scores)):
        ordered = np.sort(-values)
        out[row] = np.searchsorted(ordered, -values, side="left") + 1
    return out


def reciprocal_rank_fusion(score_matrices: Sequence[np.ndarray], k: int = RRF_K) -> np.ndarray:
    """Σ 1 / (k + rank) over the attackers' (texts, individuals) score matrices."""
    return sum((1.0 / (k + ranks(m)) for m in score_matrices), np.zeros(np.shape(score_matrices[0])))


@dataclass(frozen=True, slots=True)
class FusedConfig:
    rrf_k: int = RRF_K
    stopwords: str = "auto"  # BM25's (retrieval-ids): auto | en | sv | none
    embedder: str = "auto"  # the dense attacker's
    window: int = 128
    device: str = "auto"

    def __post_init__(self) -> None:
        if self.rrf_k < 0:
            raise InvalidValue(f"rrf_k must be 0 or more, not {self.rrf_k}")
        RetrievalConfig(stopwords=self.stopwords)  # the parts check their own settings
        DenseConfig(self.embedder, self.window, self.device)

    def resolved(self, lang: str) -> FusedConfig:
        stopwords = self.stopwords if self.stopwords != "auto" else (lang if lang in STOPWORD_LANGUAGES else "none")
        dense = DenseConfig(self.embedder, self.window, self.device).resolved(lang)
        return FusedConfig(self.rrf_k, stopwords, dense.embedder, self.window, self.device)


class FusedAttacker:
    """retrieval-ids and dense, fused by reciprocal rank; `scores(texts)` ranks every individual."""

    name = "retrieval-fused"
    Config = FusedConfig

    def __init__(self, background: Background, config: FusedConfig,
                 log: Callable[[str], None] | None = None) -> None:
        self.background = background
        self.config = config
        self.parts = (IdRetrievalAttacker(background, RetrievalConfig(stopwords=config.stopwords), log=log),
                      DenseAttacker(background, DenseConfig(config.embedder, config.window, config.device), log=log))

    def describe(self) -> dict:
        return {"method": "reciprocal rank fusion", "rrf_k": self.config.rrf_k,
                **{part.name: part.describe() for part in self.parts}}

    def scores(self, texts: Sequence[str]) -> np.ndarray:
        return reciprocal_rank_fusion([part.scores(texts) for part in self.parts], self.config.rrf_k)
