"""Sub-word pieces → whole word forms, for any Hugging Face tokenizer.

A masked LM predicts one vocabulary piece per mask. A pseudonym must be a whole word
form, so a piece that can only continue a word (WordPiece `##ing`, a byte-level BPE
piece without its `Ġ` space marker after a space) or that holds no letter or digit
(punctuation; 11 % of the offline model's top-1 fills, notes/offline-mlm.md) is never a
candidate for the first mask of a span. Shared by fill-mask, NS3/NAd, the offline model
build (whole-word masking) and the MTC generators.

Three schemes cover the models in use: WordPiece (BERT, the offline English model),
byte-level BPE (RoBERTa: both paper models and the offline Swedish model) and
SentencePiece (XLM-R and other multilingual models a user may bring).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

WORDPIECE, BYTE_BPE, SENTENCEPIECE = "wordpiece", "byte-bpe", "sentencepiece"
# Pieces that may sit inside a multi-piece fill (NS3/NAd) without holding a letter:
# "J. Smith", "Smith-Jones", "O'Brien", "AT&T".
_JOINERS = frozenset(".-'’&/")
# A lower-cased fill starts a sentence after these (or at the window's start).
_SENTENCE_END = frozenset(".!?\"“”«»")
CASING_FILE = "casing.json"


def scheme_of(vocab: dict[str, int]) -> str:
    """The piece-marking scheme, judged from how many vocabulary entries carry each marker."""
    counts = {BYTE_BPE: 0, SENTENCEPIECE: 0, WORDPIECE: 0}
    for piece in vocab:
        if piece.startswith("Ġ"):
            counts[BYTE_BPE] += 1
        elif piece.startswith("▁"):
            counts[SENTENCEPIECE] += 1
        elif piece.startswith("##"):
            counts[WORDPIECE] += 1
    return max(counts, key=counts.__getitem__)


@dataclass(frozen=True)
class PieceTable:
    """Per vocabulary id: may it start a word, does it hold a letter/digit, is it special."""
    scheme: str
    initial: tuple[bool, ...]  # begins a new word (WordPiece: no ##; BPE: Ġ; SentencePiece: ▁)
    wordlike: tuple[bool, ...]  # holds at least one letter or digit
    special: tuple[bool, ...]  # [CLS], <mask>, <pad>, [UNK] …
    joiner: tuple[bool, ...]  # punctuation allowed inside a multi-piece fill
    lowercase: bool  # the tokenizer lower-cases its input (fills come out lower-cased)

    def first_piece_ok(self, after_space: bool) -> list[bool]:
        """Ids allowed as the first (or only) piece of a fill. A BPE piece without its space
        marker continues the previous word, so after a space only marked pieces start one;
        WordPiece `##` pieces never start a word."""
        need_initial = after_space or self.scheme == WORDPIECE
        return [w and not s and (i or not need_initial)
                for i, w, s in zip(self.initial, self.wordlike, self.special)]

    def next_piece_ok(self) -> list[bool]:
        """Ids allowed after the first piece of a multi-piece fill."""
        return [not s and (w or j) for w, s, j in zip(self.wordlike, self.special, self.joiner)]


def piece_table(tokenizer) -> PieceTable:
    vocab = tokenizer.get_vocab()
    size = max(len(tokenizer), max(vocab.values()) + 1)
    pieces = [""] * size
    for piece, i in vocab.items():
        pieces[i] = piece
    scheme = scheme_of(vocab)
    special_ids = set(tokenizer.all_special_ids)
    initial, wordlike, joiner = [], [], []
    for piece in pieces:
        if scheme == WORDPIECE:
            starts, surface = not piece.startswith("##"), piece.removeprefix("##")
        elif scheme == BYTE_BPE:
            starts = piece.startswith("Ġ")
            surface = tokenizer.convert_tokens_to_string([piece]) if piece else ""
        else:
            starts, surface = piece.startswith("▁"), piece.replace("▁", " ")
        surface = surface.strip()
        initial.append(starts)
        # A letter or digit ("_" is \w but no word); "<0x..>" are SentencePiece byte pieces.
        wordlike.append(any(c.isalnum() for c in surface) and not surface.startswith("<0x"))
        joiner.append(surface != "" and all(c in _JOINERS for c in surface))
    special = [i in special_ids or not p for i, p in enumerate(pieces)]
    return PieceTable(scheme, tuple(initial), tuple(wordlike), tuple(special), tuple(joiner),
                      lowercases(tokenizer))


def lowercases(tokenizer) -> bool:
    """True when the tokenizer lower-cases its input (e.g. bert-base-uncased, MiniLM)."""
    if getattr(tokenizer, "do_lower_case", None) is not None:
        return bool(tokenizer.do_lower_case)
    probe = tokenizer.tokenize("Zq")
    return bool(probe) and probe[0].lstrip("Ġ▁#") == probe[0].lstrip("Ġ▁#").lower()


def pieces_to_text(tokenizer, piece_ids: Sequence[int]) -> str:
    """The text of consecutive pieces as the tokenizer writes it, without outer spaces."""
    return tokenizer.convert_tokens_to_string(tokenizer.convert_ids_to_tokens(list(piece_ids))).strip()


class Recaser:
    """Restores capitals to fills of a lower-casing model.

    A casing map (lower-cased form → its most frequent written form in the model's
    training text, written by the offline build as casing.json) gives "london" →
    "London"; a fill that starts a sentence gets a capital first letter. Models that
    keep case pass fills through unchanged.
    """

    def __init__(self, active: bool, casing: dict[str, str] | None = None) -> None:
        self.active = active
        self.casing = casing or {}

    @classmethod
    def for_model(cls, tokenizer, model_dir: str | Path | None) -> Recaser:
        active = lowercases(tokenizer)
        casing = None
        if active and model_dir is not None and (Path(model_dir) / CASING_FILE).is_file():
            casing = json.loads((Path(model_dir) / CASING_FILE).read_text(encoding="utf-8"))
        return cls(active, casing)

    def __call__(self, fill: str, left_context: str) -> str:
        if not self.active or not fill:
            return fill
        words = [self.casing.get(w, w) for w in fill.split(" ")]
        out = " ".join(words)
        before = left_context.rstrip()
        if not before or before[-1] in _SENTENCE_END:
            out = out[:1].upper() + out[1:]
        return out


def dedupe(items: Iterable[str]) -> list[str]:
    """Distinct candidates, first occurrence kept (two pieces can decode to one form)."""
    return list(dict.fromkeys(i for i in items if i))
