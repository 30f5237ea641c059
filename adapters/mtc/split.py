"""The document split that keeps SS-MTC's training documents apart from evaluated ones.

The order is a hash of (seed, doc_id), so a split depends on nothing but the ids, the
seed and the fraction: the same corpus always splits the same way, and adding a
document does not move the others. The checkpoint records both lists and writes them
as id files for `workbench generate --docs @heldout_docs.txt`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from workbench.data_model import Corpus


@dataclass(frozen=True, slots=True)
class DocumentSplit:
    corpus_name: str
    corpus_hash: str
    train_fraction: float
    seed: int
    train: tuple[str, ...]
    held_out: tuple[str, ...]


def split_documents(corpus: Corpus, train_fraction: float, seed: int) -> DocumentSplit:
    if not 0.0 < train_fraction <= 1.0:
        raise ValueError("train_fraction must be in (0, 1]")
    ids = [d.doc_id for d in corpus.documents]
    order = sorted(ids, key=lambda i: hashlib.sha256(f"{seed}|{i}".encode()).hexdigest())
    n_train = max(1, round(len(ids) * train_fraction))
    train = set(order[:n_train])
    return DocumentSplit(corpus.name, corpus.content_hash, train_fraction, seed,
                         tuple(i for i in ids if i in train), tuple(i for i in ids if i not in train))
