"""`retrieval-ids-z` and `retrieval-ids-run`: retrieval-ids with each individual's scores standardised
(issue 39, toward TRIR 0.95 on the original).

BM25 favours some background texts for every query: on TAB test, 21 original documents that no
attacker re-identified were drawn to a few long texts (one of 37,000 characters was the first guess
for 10 of them), the "hubs" of nearest-neighbour search. `retrieval-ids-z` measures how high each individual scores
for text that is *not* about it in particular, from the background alone: every background text
cut into REFERENCE_PIECES pieces of REFERENCE_CHARS characters, evenly spaced, scored as queries;
an individual's score for a document is then its BM25 score minus its mean over those pieces,
divided by their standard deviation (a z-score per individual). The reference depends only on the
background, never on the documents attacked, so a document's ranks do not depend on the others
scored with it (the batches of workbench.privacy.reid_attacks.reid stay independent). `retrieval-ids-run`
(RunNormalisedAttacker) standardises over the attacked run's documents instead: stronger, and
transductive (a document's ranks depend on the run's other documents).

Measured on TAB test with the shipped background (docs/privacy.md): original / suppress / label
0.874 / 0.638 / 0.630 (retrieval-ids-z) and 0.953 / 0.748 / 0.740 (retrieval-ids-run) against
retrieval-ids' 0.772 / 0.543 / 0.559. New registry names, so retrieval-ids' attack keys are
unchanged; each key names its normalisation (`normalise`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from workbench.privacy.reid_attacks.retrieval_ids import IdRetrievalAttacker

REFERENCE_CHARS = 3000  # about a third of a TAB test document's length
REFERENCE_PIECES = 8  # per individual, evenly spaced over its text
NORMALISE = f"background-z-{REFERENCE_CHARS}x{REFERENCE_PIECES}"  # in the attack key
RUN_NORMALISE = "run-z-1"  # retrieval-ids-run's, in its attack key


def reference_pieces(texts: Sequence[str], chars: int = REFERENCE_CHARS, per: int = REFERENCE_PIECES) -> list[str]:
    """`per` pieces of `chars` characters from each text, evenly spaced (fewer where a text is short)."""
    pieces = []
    for text in texts:
        starts = sorted({int(s) for s in np.linspace(0, max(0, len(text) - chars), per)})
        pieces += [text[s:s + chars] for s in starts]
    return pieces


class HubCorrectedAttacker(IdRetrievalAttacker):
    """retrieval-ids, each individual's scores standardised over reference pieces of the background."""

    name = "retrieval-ids-z"

    def __init__(self, background, config, log=None) -> None:
        super().__init__(background, config, log=log)
        self._mean: np.ndarray | None = None
        self._std: np.ndarray | None = None

    def describe(self) -> dict:
        return {**super().describe(), "normalise": NORMALISE}

    def _reference(self) -> tuple[np.ndarray, np.ndarray]:
        if self._mean is None or self._std is None:
            raw = IdRetrievalAttacker.scores(self, reference_pieces(self.background.texts))
            self._mean = raw.mean(axis=0)
            # an individual no piece reaches (all zeros) keeps its raw scale rather than dividing by 0
            std = raw.std(axis=0)
            self._std = np.where(std > 0, std, 1.0)
        return self._mean, self._std

    def scores(self, texts: Sequence[str]) -> np.ndarray:
        mean, std = self._reference()
        raw = IdRetrievalAttacker.scores(self, texts)
        # a text with no indexed word stays a tie of every individual, as for retrieval-ids
        return np.where(raw.any(axis=1, keepdims=True), (raw - mean) / std, 0.0)


class RunNormalisedAttacker(IdRetrievalAttacker):
    """retrieval-ids, each individual's scores standardised over the documents of the attacked run.

    The attacker has the whole released corpus and knows each document is about someone: an
    individual's typical score over those documents is the level a hub reaches for everyone, so a
    document's score for it counts by how far it stands above that level (a z-score per individual
    over the run's documents, the hubness correction of cross-domain retrieval: CSLS, inverted
    softmax). Transductive: a document's ranks depend on the run's other documents, so reid scores
    the whole run in one batch (`whole_run`) and attacks all of it again when any document changed.
    A run of one document has no spread: its raw scores stand. Measured on TAB test (docs/privacy.md):
    original / suppress / label 0.953 / 0.748 / 0.740 with the shipped background."""

    name = "retrieval-ids-run"
    whole_run = True

    def describe(self) -> dict:
        return {**super().describe(), "normalise": RUN_NORMALISE}

    def scores(self, texts: Sequence[str]) -> np.ndarray:
        raw = IdRetrievalAttacker.scores(self, texts)
        if len(texts) < 2:
            return raw
        std = raw.std(axis=0)
        z = (raw - raw.mean(axis=0)) / np.where(std > 0, std, 1.0)
        return np.where(raw.any(axis=1, keepdims=True), z, 0.0)  # a text with no indexed word: a tie
