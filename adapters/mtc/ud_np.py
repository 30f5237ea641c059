"""Noun phrases from a UD treebank with gold UPOS and dependency relations (the MTC vocabulary).

Kalinsky et al. (2023) take common noun phrases from Wikipedia; here a phrase is a base
noun phrase of a UD sentence: a NOUN or PROPN head with the contiguous dependents that
name or describe it (compound, flat, fixed, amod, nummod; "Supreme Court", "George W.
Bush", "two years"), without determiners, possessors or clauses. A head that is itself
a compound/flat/fixed part belongs to its parent's phrase. Heads without such dependents
give one-word phrases; they matter when the word is several sub-word tokens.

Reads CoNLL-U directly because it needs HEAD and DEPREL (workbench.loaders.conllu keeps
form and UPOS only) and the sentence text with character offsets.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from workbench.infra.errors import CorpusError

PARTS = frozenset({"compound", "flat", "fixed", "amod", "nummod"})
RIGHT_PARTS = frozenset({"compound", "flat", "fixed"})  # "Abdullah al-Ani": flat names continue rightwards
HEADS = frozenset({"NOUN", "PROPN"})


@dataclass(frozen=True, slots=True)
class Token:
    index: int  # 1-based UD id
    form: str
    upos: str
    head: int
    deprel: str  # without subtype ("nmod:poss" → "nmod")
    start: int  # character offsets in the sentence text
    end: int


@dataclass(frozen=True, slots=True)
class UdSentence:
    sent_id: str
    text: str
    tokens: tuple[Token, ...]


def read_ud(path: str | Path) -> Iterator[UdSentence]:
    """Sentences with their `# text` and each word's character offsets in it."""
    path = Path(path)
    rows: list[list[str]] = []
    text, sent_id = None, ""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise CorpusError(str(path), f"cannot read: {exc.strerror or exc}") from None
    lines.append("")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            if rows:
                yield _sentence(path, number, sent_id, text, rows)
            rows, text = [], None
            continue
        if line.startswith("# text ="):
            text = line[len("# text ="):].strip()
        elif line.startswith("# sent_id ="):
            sent_id = line[len("# sent_id ="):].strip()
        elif not line.startswith("#"):
            cols = line.split("\t")
            if len(cols) != 10:
                raise CorpusError(str(path), f"line {number} has {len(cols)} columns, CoNLL-U needs 10")
            if "-" not in cols[0] and "." not in cols[0]:
                rows.append(cols)


def _sentence(path: Path, number: int, sent_id: str, text: str | None, rows: list[list[str]]) -> UdSentence:
    if text is None:  # no "# text": rebuild it from the forms and SpaceAfter=No
        text = "".join(c[1] + ("" if "SpaceAfter=No" in c[9] else " ") for c in rows).rstrip()
    tokens, cursor = [], 0
    for c in rows:
        start = text.find(c[1], cursor)
        if start < 0:  # a form that differs from the text (rare typo fixes): no offsets
            start = end = -1
        else:
            end = start + len(c[1])
            cursor = end
        try:
            tokens.append(Token(int(c[0]), c[1], c[3], int(c[6]), c[7].split(":")[0], start, end))
        except ValueError:
            raise CorpusError(str(path), f"sentence ending at line {number}: bad id/head {c[0]!r}/{c[6]!r}") from None
    return UdSentence(sent_id, text, tuple(tokens))


@dataclass(frozen=True, slots=True)
class NounPhrase:
    start: int  # character offsets in the sentence text
    end: int
    words: int


def noun_phrases(sentence: UdSentence) -> list[NounPhrase]:
    by_index = {t.index: t for t in sentence.tokens}
    children: dict[int, list[Token]] = {}
    for t in sentence.tokens:
        children.setdefault(t.head, []).append(t)
    found = []
    for head in sentence.tokens:
        if head.upos not in HEADS or head.deprel in RIGHT_PARTS:
            continue
        lo = hi = head.index
        parts = children.get(head.index, [])
        left = sorted((k.index for k in parts if k.index < head.index and k.deprel in PARTS), reverse=True)
        for i in left:
            if i != lo - 1:
                break
            lo = i
        right = sorted(k.index for k in parts if k.index > head.index and k.deprel in RIGHT_PARTS)
        for i in right:
            if i != hi + 1:
                break
            hi = i
        first, last = by_index[lo], by_index[hi]
        if first.start < 0 or last.end < 0:
            continue
        found.append(NounPhrase(first.start, last.end, hi - lo + 1))
    return found
