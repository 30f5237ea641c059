"""UD CoNLL-U vocabularies: (form, UPOS, count), the inventory of paper 003's baselines."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from workbench.infra.errors import CorpusError
from workbench.loaders.files import read_text


@dataclass(frozen=True, slots=True)
class VocabEntry:
    form: str
    upos: str
    count: int


def read_conllu_tokens(path: str | Path) -> list[list[tuple[str, str]]]:
    """Sentences as lists of (form, UPOS); multi-word token ranges and empty nodes skipped."""
    sentences: list[list[tuple[str, str]]] = []
    current: list[tuple[str, str]] = []
    # Lines end at "\n" only (CoNLL-U's rule); splitlines would also cut a form holding U+2028.
    for number, line in enumerate(read_text(Path(path)).split("\n"), start=1):
        line = line.rstrip("\r")
        if not line.strip():
            if current:
                sentences.append(current)
                current = []
            continue
        if line.startswith("#"):
            continue
        cols = line.split("\t")
        if len(cols) != 10:
            raise CorpusError(str(path), f"line {number} has {len(cols)} columns, CoNLL-U needs 10")
        if "-" in cols[0] or "." in cols[0]:
            continue
        current.append((cols[1], cols[3]))
    if current:
        sentences.append(current)
    return sentences


def load_vocabulary(path: str | Path) -> tuple[VocabEntry, ...]:
    """Distinct (form, UPOS) pairs with their counts, most frequent first, ties by form."""
    counts = Counter(tok for sentence in read_conllu_tokens(path) for tok in sentence)
    return tuple(VocabEntry(form, upos, n)
                 for (form, upos), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
