"""The current sanitised text around a span (004 §3.2 "Inference attack") and the span's sentence (§3.1).

004 attacks each candidate inside the current version of the sanitised document: spans already
decided carry their replacement, the span under test carries the candidate, and spans not yet
decided carry their most specific candidate. Here the text is a slot's window (the run's repL
slot: its earlier spans carry this run's picks), and a span not yet decided carries its label,
as the `label` reference run writes it. Why not 004's most specific candidate: it would need
every later span's candidates before the first is decided (a second pass over the document,
with the originals of spans the slot does not hand over), and the label is what such a span ends
with when every candidate is disclosed: the attacker sees no more of an undecided span than the
least it will show. A span whose pick FAILED stays undecided (the engine leaves it masked).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from workbench.text.sentences import merge_across_spans, split_sentences
from workbench.text.slots import Gap


@dataclass(frozen=True, slots=True)
class Placed:
    """A text with one span placed in it: text[start:end] is that span's text."""
    text: str
    start: int
    end: int


def undecided_as_label(gap: Gap) -> str:
    return gap.label


def place(pieces: Sequence[str | Gap], target: int, target_text: str,
          undecided: Callable[[Gap], str] = undecided_as_label) -> Placed:
    """The window with `target_text` at span `target`, decided spans as picked, the rest by `undecided`."""
    parts: list[str] = []
    length = 0
    start = end = -1
    for piece in pieces:
        if isinstance(piece, str):
            text = piece
        elif piece.span_index == target:
            text, start = target_text, length
            end = length + len(target_text)
        else:
            text = piece.fill if piece.fill is not None else undecided(piece)
        parts.append(text)
        length += len(text)
    if start < 0:
        raise ValueError(f"span {target} is not in these pieces")
    return Placed("".join(parts), start, end)


def bracketed_sentence(pieces: Sequence[str | Gap], target: int, original: str, lang: str) -> str:
    """The sentence holding span `target`, with its original text in [[…]] (004 §5.2's delimiters)."""
    placed = place(pieces, target, f"[[{original}]]")
    sentences = merge_across_spans(split_sentences(placed.text, lang), [(placed.start, placed.end)])
    for a, b in sentences:
        if a <= placed.start and placed.end <= b:
            return placed.text[a:b]
    return placed.text.strip()  # unreachable in practice: merging keeps the span inside one sentence
