"""The retrieval attacker: BM25 over the background texts, no training (paper 001 §3, "IR ReID").

Each background text is one indexed document; a pseudonymised document is the query, and
the individuals are ranked by their text's BM25 score. This is the lexical attacker of
paper 001 (Table 1: BM25 re-identifies 74.9 % of unredacted WikiBio documents and almost
none once named entities are removed): it finds what a pseudonym left verbatim, and
nothing a paraphrase or a generalisation keeps.

Implementation: PyPI `bm25s` (Lucene's BM25 variant, k1 = 1.5, b = 0.75, the usual
defaults; only numpy as a dependency). Chosen over `rank-bm25` because bm25s computes
every term's BM25 weight once at indexing into a sparse matrix, so a query costs a few
column sums instead of a Python loop over all documents (its authors report orders of
magnitude more queries per second than rank-bm25 on BEIR); at 127 individuals either
would do, at a background of thousands of rulings (paper 004 §5.6) only the first.
Chosen over scikit-learn's TfidfVectorizer because TF-IDF cosine is not the BM25 of
paper 001: BM25's term saturation and length normalisation matter when the background
texts run from 5,000 to 200,000 characters (TAB: 20,000 on average).
Tokens: bm25s's scikit-learn-style pattern (words of two or more characters), lowercased,
with its stop-word list of the documents' language; no stemming. Texts are put in NFC first
(workbench.text.compare), so a name written with combining marks is one token and matches the
same name written precomposed in the background.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from workbench.data_model import LANGUAGES
from workbench.infra.errors import InvalidValue, MissingExtra, WorkbenchError
from workbench.privacy.reid_attacks.background import Background
from workbench.text.compare import nfc

STOPWORD_LANGUAGES = (*LANGUAGES, "none")
_STOPWORD_NAMES = {"en": "an English stop word", "sv": "a Swedish stop word", "none": "left out"}


@dataclass(frozen=True, slots=True)
class RetrievalConfig:
    k1: float = 1.5  # term-frequency saturation
    b: float = 0.75  # length normalisation
    stopwords: str = "auto"  # auto: the attacked documents' language; en | sv | none

    def __post_init__(self) -> None:
        if self.k1 < 0 or not 0 <= self.b <= 1:
            raise InvalidValue(f"BM25 needs k1 >= 0 and 0 <= b <= 1, not k1={self.k1}, b={self.b}")
        if self.stopwords not in STOPWORD_LANGUAGES + ("auto",):
            raise InvalidValue(f"stopwords must be auto or one of {', '.join(STOPWORD_LANGUAGES)}, not "
                             f"{self.stopwords!r}")

    def resolved(self, lang: str) -> RetrievalConfig:
        if self.stopwords != "auto":
            return self
        return RetrievalConfig(self.k1, self.b, lang if lang in STOPWORD_LANGUAGES else "none")

    def describe(self) -> dict:
        return {"method": "bm25 (lucene)", **asdict(self), "implementation": f"bm25s=={_bm25s_version()}"}


def _bm25s():
    try:
        import bm25s
    except ModuleNotFoundError as exc:
        raise MissingExtra("the retrieval re-identification attacker", "privacy", exc.name) from None
    return bm25s


def _bm25s_version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("bm25s")
    except PackageNotFoundError:
        return "missing"


class RetrievalAttacker:
    """BM25 over the background texts; `scores(texts)` ranks every individual for each text."""

    name = "retrieval"
    Config = RetrievalConfig
    batch_documents = 64  # documents per stored transaction (workbench.privacy.reid_attacks.reid.todo_batches)

    def __init__(self, background: Background, config: RetrievalConfig,
                 log: Callable[[str], None] | None = None) -> None:  # log: unused, indexing takes seconds
        if config.stopwords == "auto":
            raise ValueError("resolve the stop-word language first (RetrievalConfig.resolved)")
        self.background = background
        self.config = config
        self._index: Any = None  # a bm25s.BM25 once fit() has run (bm25s has no types)

    def describe(self) -> dict:
        return self.config.describe()

    def _tokens(self, texts: Sequence[str]) -> list[list[str]]:
        bm25s = _bm25s()
        stopwords = None if self.config.stopwords == "none" else self.config.stopwords
        return bm25s.tokenize([nfc(t) for t in texts], lower=True, stopwords=stopwords, return_ids=False,
                              show_progress=False)

    def fit(self) -> RetrievalAttacker:
        """Index the background texts (seconds); done once, on first use."""
        if self._index is None:
            bm25s = _bm25s()
            index = bm25s.BM25(k1=self.config.k1, b=self.config.b, method="lucene")
            tokens = self._tokens(self.background.texts)
            if not any(tokens):  # bm25s would fail on the empty vocabulary ("max() arg is an empty sequence")
                raise WorkbenchError(
                    f"background knowledge {self.background.path}: none of its {len(tokens)} text(s) has a word the "
                    f"retrieval attacker can index (two or more letters, not {_STOPWORD_NAMES[self.config.stopwords]}"
                    "), so no individual can be told from another; give texts with content words"
                    + ("" if self.config.stopwords == "none" else ", or keep stop words with -o stopwords=none"))
            index.index(tokens, show_progress=False)
            self._index = index
        return self

    def scores(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), n_individuals) BM25 scores, higher = more likely that individual."""
        self.fit()
        out = np.zeros((len(texts), len(self.background.individuals)), dtype=np.float64)
        for row, tokens in enumerate(self._tokens(texts)):
            known = [t for t in tokens if t in self._index.vocab_dict]
            if known:  # a query with no indexed word scores every individual 0: a tie, not an error
                out[row] = self._index.get_scores(known)
        return out
