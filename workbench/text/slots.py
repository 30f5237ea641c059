"""Slots: one span to fill, with its window of context rendered for a masking mode.

A window is the target span's sentence ± `window` sentences (003 §4: ±2). Inside it
every span to replace is a Gap. In maskL all gaps are masked; in repL the gaps left
of the target carry this run's earlier picks (003 Appendix B).

What a generator sees of the span it fills is declared per generator (and per label):
    context   the window with gaps, the label, the identifier type where the corpus has one
              (TAB's DIRECT/QUASI), the original's UPOS and its length in characters:
              nothing of the original text (every generator of 003 and 000)
    shape     also `Slot.shape`, the original's character classes (workbench.text.shape)
    original  also `Slot.original`, the original text itself
SlotBuilder never puts either in a slot; the run engine alone adds them, with reveal(),
at the level the generator declares (Generator.sees_for). Nothing else of an original
reaches a generator: not in a Gap, not in the pieces, and never that of another span to
replace. (A span not to replace, mask=False, is kept as its original text in every window.)
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from workbench.data_model import Document
from workbench.text.sentences import merge_across_spans, sentence_of_spans, split_sentences
from workbench.text.shape import shape_of

MODES = ("maskL", "repL")
# What a generator may see of the original span, from least to most (see the module docstring);
# the first is every generator's default.
SEES_LEVELS = ("context", "shape", "original")
# Which mentions are one entity (--consistent; workbench.generation.consistency): off (the default,
# first) generates every mention on its own, as in paper 003's runs. Here beside the other
# choices of a run's options, so the run signature and the generator contract read it from below.
CONSISTENT_SCOPES = ("off", "document", "corpus")
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Gap:
    span_index: int  # index into Document.spans
    label: str
    upos: str | None  # UPOS of the original span's right-most token, when tagged
    fill: str | None = None  # repL: this run's earlier pick; None: masked
    # Length of the original span in characters (from its offsets), never its text: NAd
    # (000 §2) puts one mask per original sub-word and estimates that count from this.
    n_chars: int = 0

    @property
    def masked(self) -> bool:
        return self.fill is None


@dataclass(frozen=True, slots=True)
class Slot:
    doc_id: str
    lang: str
    span_index: int
    label: str
    upos: str | None
    # The window: plain text and gaps in reading order; exactly one gap is the target.
    pieces: tuple[str | Gap, ...]
    # Filled by the engine only, at the generator's level (reveal()): None at `context`.
    shape: str | None = None  # shape_of(the original span's text): `shape` and `original`
    original: str | None = None  # the original span's text: `original` only
    # The target's identifier type as the corpus annotates it (TAB: DIRECT / QUASI), "" where
    # the format has none: an annotation like the label, not the span's text.
    identifier_type: str = ""
    # The original's UD features read in context, as "Case=Gen" (like `upos`, a reading of the
    # sentence): `Case=Gen` where the engine reads a Swedish genitive (workbench.upos.
    # genitive_reading), with Case/Number/Definite where --morph-filter tagged them. Given only
    # to a generator whose reads_features() is True (the surrogate), else empty.
    features: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        targets = [p for p in self.pieces if isinstance(p, Gap) and p.span_index == self.span_index]
        if len(targets) != 1 or not targets[0].masked:
            raise ValueError(f"slot {self.doc_id}#{self.span_index} must hold its target exactly once, masked")
        # The levels nest: an original always comes with its shape, and the shape is its own.
        if self.original is not None and self.shape != shape_of(self.original):
            raise ValueError(f"slot {self.doc_id}#{self.span_index}: an original comes with its shape")
        if self.shape is not None and targets[0].n_chars and len(self.shape) != targets[0].n_chars:
            raise ValueError(f"slot {self.doc_id}#{self.span_index}: the shape is not as long as the span")

    @property
    def sees(self) -> str:
        """The level this slot was revealed at: context, shape or original."""
        return "original" if self.original is not None else "shape" if self.shape is not None else "context"

    @property
    def gaps(self) -> tuple[Gap, ...]:
        """The masked gaps in reading order (filled ones are plain text to a generator)."""
        return tuple(p for p in self.pieces if isinstance(p, Gap) and p.masked)

    @property
    def target_number(self) -> int:
        """1-based position of the target among the masked gaps: the N of [MASK.N]."""
        return next(n for n, g in enumerate(self.gaps, start=1) if g.span_index == self.span_index)

    @property
    def window_key(self) -> tuple:
        """Equal for slots whose rendered windows are identical (maskL: same sentence)."""
        return (self.doc_id, self.pieces)

    def parts(self, mask: Callable[[int, Gap], T]) -> list[str | T]:
        """The window in reading order as text runs and one `mask(number, gap)` per masked gap.

        The one walk over a window's gaps: plain text and repL fills (already picked, so
        plain text to a generator) are joined into one run; masked gaps are numbered from
        1 in reading order, the N of [MASK.N]. render() and the masked-LM encoders use it.
        """
        out: list[str | T] = []
        run: str | None = None  # the text run being joined (kept apart: a mask's result may be a str too)
        number = 0
        for piece in self.pieces:
            if isinstance(piece, Gap) and piece.masked:
                if run is not None:
                    out.append(run)
                    run = None
                number += 1
                out.append(mask(number, piece))
                continue
            text = piece if isinstance(piece, str) else piece.fill or ""  # an unmasked gap has its fill
            run = text if run is None else run + text
        if run is not None:
            out.append(run)
        return out

    def render(self, mask: str | Callable[[int, Gap], str]) -> str:
        """The window as text; `mask` is a token or a function (number, gap) -> text."""
        return "".join(self.parts((lambda number, gap: mask) if isinstance(mask, str) else mask))


def reveal(slot: Slot, level: str, original: str) -> Slot:
    """The slot as a generator at `level` may see it; `original` is the target span's text.

    The one place an original enters a slot: the engine calls it for every slot with the
    level the generator declares for the slot's label (Generator.sees_for)."""
    if level not in SEES_LEVELS:
        raise ValueError(f"unknown level {level!r} (levels: {', '.join(SEES_LEVELS)})")
    if level == "context":
        return slot if slot.shape is None and slot.original is None else replace(slot, shape=None, original=None)
    return replace(slot, shape=shape_of(original), original=original if level == "original" else None)


class DocumentPicks(Mapping[int, str]):
    """One document's view of a run's picks {(doc_id, span_index): pseudonym}, not a copy:
    copying a document's earlier picks for each repL slot made a run quadratic in spans."""

    def __init__(self, picks: Mapping[tuple[str, int], str], doc_id: str) -> None:
        self._picks, self._doc_id = picks, doc_id

    def __getitem__(self, span_index: int) -> str:
        return self._picks[(self._doc_id, span_index)]

    def __iter__(self):
        return (i for d, i in self._picks if d == self._doc_id)

    def __len__(self) -> int:
        return sum(1 for _ in self)


class SlotBuilder:
    """Builds the slots of one document; sentence splitting is done once per document."""

    def __init__(self, doc: Document, upos: Sequence[str | None] | None = None, window: int = 2) -> None:
        if window < 0:
            raise ValueError("window must be >= 0 sentences")
        self.doc = doc
        self.window = window
        self.upos = list(upos) if upos is not None else [None] * len(doc.spans)
        offsets = [(s.start, s.end) for s in doc.spans]
        self.sentences = merge_across_spans(split_sentences(doc.text, doc.lang), offsets)
        self.sentence_of = sentence_of_spans(self.sentences, offsets)
        self._starts = [a for a, _ in offsets]
        self._ends = [b for _, b in offsets]

    def slot(self, span_index: int, picks: Mapping[int, str] | None = None) -> Slot:
        """The slot of one span. `picks` (repL) fill the masked spans left of the target."""
        doc, spans = self.doc, self.doc.spans
        target = spans[span_index]
        if not target.mask:
            raise ValueError(f"span {span_index} of {doc.doc_id} is not one to replace")
        s = self.sentence_of[span_index]
        first = max(0, s - self.window)
        last = min(len(self.sentences) - 1, s + self.window)
        lo, hi = self.sentences[first][0], self.sentences[last][1]
        pieces: list[str | Gap] = []
        cursor = lo
        # Spans are sorted and do not overlap: only those starting in [lo, hi) can lie in the
        # window, found by bisection, so a slot costs its window, not its whole document.
        for i in range(bisect_right(self._ends, lo), bisect_left(self._starts, hi)):
            span = spans[i]
            if not span.mask:
                continue  # annotated but kept as original text
            if span.start > cursor:
                pieces.append(doc.text[cursor:span.start])
            fill = picks.get(i) if picks is not None and i < span_index else None
            pieces.append(Gap(i, span.label, self.upos[i], fill, span.end - span.start))
            cursor = span.end
        if hi > cursor:
            pieces.append(doc.text[cursor:hi])
        return Slot(doc.doc_id, doc.lang, span_index, target.label, self.upos[span_index], tuple(pieces),
                    identifier_type=target.identifier_type)

    def target_sentence(self, span_index: int) -> tuple[int, int]:
        return self.sentences[self.sentence_of[span_index]]
