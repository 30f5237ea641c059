"""Surrogates of whole spans, by the kind the table gives their label (paper 002 §3.2).

    maker = SurrogateMaker(load_table(), seed=13)
    maker.from_original("Anna Berg", "PERSON", "en", "doc-1")      # SpanSurrogate("Kathy Holloway")
    maker.from_original("3 August 2003", "DATETIME", "en", "doc-1") # SpanSurrogate("13 August 2003")
    maker.from_shape("99999/99", "doc-1", 4, k=3)                  # ("72604/15", …)

What a kind reads of the original (docs/surrogates.md, "What it reads"):
    words    the words: the same word maps to the same surrogate within a document, and the
             dictionary (and, with keep_gender, the gender) is chosen by the word
    date     the date: shifting needs its value
    number   the words: number words are redrawn and units kept
    shape    the shape only (digits, capitals, small letters, other characters)

No surrogate equals its original: every drawn word differs from the word it replaces; a
span whose rule changed nothing (only titles and function words: "Mr"; a date-kind span
with no date, digit or number word in it: "summer") has its words drawn, kept words
included; a span with no letter and no digit at all fails with a note. Shape-level spans
are the exception the level forces: see from_shape.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from workbench.adapters.surrogate.date_offsets import (
    DATE_SHIFTS,
    DEFAULT_MAX_SHIFT_DAYS,
    check_max_shift_days,
    date_text_offset,
    document_offset,
)
from workbench.adapters.surrogate.dates import impossible_date, redraw_date_pieces, shift_date
from workbench.adapters.surrogate.dictionaries import Dictionaries
from workbench.adapters.surrogate.draws import MAX_ATTEMPTS, rng_for
from workbench.adapters.surrogate.mapping import WordMapping
from workbench.adapters.surrogate.numbers import is_number_word
from workbench.adapters.surrogate.pieces import DIGITS, LETTERS, is_genitive_ending, split
from workbench.adapters.surrogate.shapes import has_classes, redraw_shape
from workbench.adapters.surrogate.table import DATE, NUMBER, SHAPE, WORDS, LabelRule, SurrogateTable
from workbench.infra.errors import WorkbenchError
from workbench.text import origins
from workbench.text.swedish_genitive import strip_genitive

SHAPE_LEVEL, ORIGINAL_LEVEL = "shape", "original"

NOTE_DATE_PIECES = "surrogate: date not read, redrawn piece by piece (shape surrogate)"
NOTE_WORDS_DRAWN = "surrogate: nothing of its kind to redraw, its words drawn from the dictionaries"
NOTE_NOTHING = "surrogate: no letter or digit to redraw"
# An impossible date is refused, not shifted (workbench.adapters.surrogate.dates.impossible_date).
NOTE_IMPOSSIBLE_DATE = "surrogate: date refused"
# The words rule of last resort, when a user's table makes its fallback another kind.
LAST_RESORT = LabelRule(WORDS, ("pud:NOUN",))
# A words rule with one of these dictionaries draws places: keep_origin draws them by the original's country.
PLACE_DICTIONARIES = frozenset({"city", "country"})


@dataclass(frozen=True, slots=True)
class SpanSurrogate:
    """What a span becomes: its surrogate text, or failed with the reason in the note."""
    text: str
    note: str = ""
    failed: bool = False


def _initialism_stem(word: str) -> str | None:
    """The letters to draw at random if `word` is an initial or initialism: "J", "DPP", "NIC" of
    "NICs"; None for a word (capitals beyond five letters are a word written in capitals). Only
    the shape: SurrogateMaker._initialism also asks the dictionaries."""
    if len(word) == 1:
        return word
    stem = word[:-1] if word.endswith("s") and len(word) > 2 else word
    return stem if stem.isupper() and len(stem) <= 5 else None


def _same(a: str, b: str) -> bool:
    return " ".join(a.casefold().split()) == " ".join(b.casefold().split())


class SurrogateMaker:
    """Surrogates for one run: its table, seed and options."""

    def __init__(self, table: SurrogateTable, seed: int, *, keep_gender: bool = False, keep_origin: bool = False,
                 max_shift_days: int = DEFAULT_MAX_SHIFT_DAYS, date_shift: str = DATE_SHIFTS[0],
                 dictionaries: Dictionaries | None = None) -> None:
        check_max_shift_days(max_shift_days)
        if date_shift not in DATE_SHIFTS:
            raise ValueError(f"date_shift must be one of {', '.join(DATE_SHIFTS)}, not {date_shift!r}")
        self.table = table
        self.seed = seed
        self.max_shift_days = max_shift_days
        self.date_shift = date_shift
        self.dictionaries = dictionaries or Dictionaries(table.locales)
        self.keep_origin = keep_origin
        self.mapping = WordMapping(self.dictionaries, seed, keep_gender=keep_gender, keep_origin=keep_origin)
        self._offsets: dict[str, int] = {}

    def level(self, label: str) -> str:
        """What spans of `label` need to see: only the shape for kind "shape", else the original."""
        return SHAPE_LEVEL if self.table.rule(label).kind == SHAPE else ORIGINAL_LEVEL

    def check(self, langs) -> None:
        """Every dictionary the table names gives words in every language asked for (a Faker
        locale missing, a method misspelt): a WorkbenchError before anything is generated."""
        try:
            for lang in langs:
                for source in sorted(self.table.all_dictionaries()):
                    self.dictionaries.check(lang, source)
        except WorkbenchError as exc:
            # The last file read is the user's table when there is one: its entries are the new ones.
            raise WorkbenchError(f"surrogate table {self.table.files[-1]}: {exc}") from None

    def offset(self, doc_id: str, date_text: str = "") -> int:
        """The shift in days of this date of the document: the document's one shift, or with
        date_shift="each" the date text's own."""
        if self.date_shift != DATE_SHIFTS[0]:
            return date_text_offset(self.seed, doc_id, date_text, self.max_shift_days)
        if doc_id not in self._offsets:
            self._offsets[doc_id] = document_offset(self.seed, doc_id, self.max_shift_days)
        return self._offsets[doc_id]

    # --- from the original text -------------------------------------------------------

    def from_original(self, text: str, label: str, lang: str, doc_id: str, *, genitive: bool = False,
                      pronoun_gender: str | None = None) -> SpanSurrogate:
        """The span's surrogate. Read in composed form (NFC): in decomposed text (NFD) "Å" is
        "A" and a combining ring, so names and dates were not recognised ("lördag") and letters
        were drawn under the original's marks ("B̊nylander"). Written back in the original's
        form: a decomposed original gets its surrogate decomposed too.

        genitive: the original is a Swedish genitive (read in context by the engine): a words-kind
        span has the base of its last word mapped (`Eriks` as `Erik`, `BBC:s` as `BBC`), so the
        genitive mention and the plain one get one surrogate; the surrogate comes back in its base
        form, and the engine puts it in the genitive (workbench.text.swedish_genitive).

        pronoun_gender: "male"/"female", the gender of the pronouns referring to the mention (the
        generator's pronoun_gender option): with keep_gender, the span's first drawn word, when no
        gendered list holds it, is drawn as a first name of that gender."""
        composed = unicodedata.normalize("NFC", text)
        read = composed
        if genitive and self.table.rule(label).kind == WORDS:
            read = self._genitive_base(composed, lang, self.table.rule(label))
        made = self._from_composed(read, label, lang, doc_id, pronoun_gender)
        if composed != text and made.text and unicodedata.is_normalized("NFD", text):
            return SpanSurrogate(unicodedata.normalize("NFD", made.text), made.note, made.failed)
        return made

    def _from_composed(self, text: str, label: str, lang: str, doc_id: str,
                       pronoun_gender: str | None = None) -> SpanSurrogate:
        rule = self.table.rule(label)
        note = ""
        out: str | None
        if rule.kind == WORDS:
            out = (self._place_of_origin(text, label, lang, doc_id, rule) if self.keep_origin else None) \
                or self._words(text, label, lang, doc_id, rule, pronoun_gender=pronoun_gender)
        elif rule.kind == DATE and (impossible := impossible_date(text, lang)) is not None:
            return SpanSurrogate("", f"{NOTE_IMPOSSIBLE_DATE}: {impossible}", failed=True)
        elif rule.kind == DATE:
            out = shift_date(text, lang, self.offset(doc_id, text))
            if out is None or _same(out, text):
                out = redraw_date_pieces(text, lang, self.offset(doc_id, text),
                                         lambda run: self.mapping.digits(doc_id, label, run),
                                         lambda word: self.mapping.number_word(doc_id, lang, label, word))
                note = NOTE_DATE_PIECES
        elif rule.kind == NUMBER:
            out = self._number(text, label, lang, doc_id)
        else:
            out = self._shape_of_text(text, doc_id, label)
        if _same(out, text):
            # Nothing of its kind to redraw ("Mr", "summer", "life imprisonment"): its words are
            # drawn, kept words included; a label without dictionaries uses the fallback's.
            words_rule = next(r for r in (rule, self.table.fallback, LAST_RESORT) if r.kind == WORDS)
            out, note = self._words(text, label, lang, doc_id, words_rule, keep=False), NOTE_WORDS_DRAWN
        if _same(out, text):
            return SpanSurrogate("", NOTE_NOTHING, failed=True)
        return SpanSurrogate(out, note)

    def _place_of_origin(self, text: str, label: str, lang: str, doc_id: str, rule: LabelRule) -> str | None:
        """keep_origin: a city of the country of the place the span names (the GeoNames gazetteer,
        workbench.text.origins), the same for the same place within a document; None for a rule that
        draws no places, a place the gazetteer does not know, or a country named alone (the usual
        word draw: another country)."""
        if not PLACE_DICTIONARIES & set(rule.dictionaries):
            return None
        origin = origins.place_origin(text, lang)
        if origin is None or not origins.regions(origin):
            return None
        pool = [c for c in origins.cities_of(origins.countries(origin)) if not _same(c, text)]
        if not pool:
            return None
        return rng_for("place", self.seed, doc_id, label.casefold(), " ".join(text.casefold().split())).choice(pool)

    def _genitive_base(self, text: str, lang: str, rule: LabelRule) -> str:
        """`text` with the genitive ending of its last word taken off (`Anna Bergs` -> `Anna Berg`,
        `DPP:s` -> `DPP`), unless a dictionary of the rule holds that word as it stands or it is a
        name ending in s (`Lars`, `Hans`: their genitive is unmarked)."""
        stripped = text.rstrip()
        head, _, last = stripped.rpartition(" ")
        if not last or any(self.dictionaries.holds(lang, d, last) for d in rule.dictionaries):
            return text
        base = strip_genitive(last)
        return (f"{head} {base}" if head else base) + text[len(stripped):]

    def _words(self, text: str, label: str, lang: str, doc_id: str, rule: LabelRule, keep: bool = True,
               pronoun_gender: str | None = None) -> str:
        pieces = split(text)
        out = []
        hint = pronoun_gender  # for the first drawn word only (the first name's place)
        # keep_origin: the name's origin, for its words no list holds (mapping.WordMapping.word).
        span_origin = origins.name_origin(text, lang) if self.keep_origin else None
        for i, piece in enumerate(pieces):
            word = piece.text
            if piece.kind == DIGITS:
                out.append(self.mapping.digits(doc_id, label, word))
            elif piece.kind != LETTERS or is_genitive_ending(pieces, i) or (keep and self.table.keeps(lang, word)):
                out.append(word)
            elif (stem := self._initialism(word, lang, rule)) is not None:
                out.append(self.mapping.letters(doc_id, label, stem) + word[len(stem):])
            else:
                out.append(self.mapping.word(doc_id, lang, label, rule, word, gender_hint=hint,
                                             span_origin=span_origin))
                hint = None
        return "".join(out)

    def _initialism(self, word: str, lang: str, rule: LabelRule) -> str | None:
        """The stem of an initial or initialism, or None for a word. Capitals of two to five
        letters are an initialism ("DPP", "SOTP", "HADEP": TAB's short capitals are acronyms)
        unless one of the rule's dictionaries holds them: then they are a word written in
        capitals ("ANNA BERG", "PLC") and draw a dictionary word in capitals."""
        stem = _initialism_stem(word)
        if stem is None or len(word) == 1:
            return stem
        if any(self.dictionaries.holds(lang, d, w) for d in rule.dictionaries for w in {word, stem}):
            return None
        return stem

    def _number(self, text: str, label: str, lang: str, doc_id: str) -> str:
        out = []
        for piece in split(text):
            if piece.kind == DIGITS:
                out.append(self.mapping.digits(doc_id, label, piece.text))
            elif piece.kind == LETTERS and is_number_word(piece.text, lang):
                out.append(self.mapping.number_word(doc_id, lang, label, piece.text))
            else:
                out.append(piece.text)
        return "".join(out)

    def _shape_of_text(self, text: str, doc_id: str, label: str) -> str:
        """A shape-kind label given the original anyway: every digit and letter redrawn."""
        out = []
        for piece in split(text):
            if piece.kind == DIGITS:
                out.append(self.mapping.digits(doc_id, label, piece.text))
            elif piece.kind == LETTERS:
                out.append(self.mapping.letters(doc_id, label, piece.text))
            else:
                out.append(piece.text)
        return "".join(out)

    # --- from the shape alone ---------------------------------------------------------

    def from_shape(self, shape: str, doc_id: str, span_index: int, k: int = 1) -> tuple[str, ...]:
        """Up to `k` distinct surrogates of a span known only by its shape (workbench.text.shape).

        The original is unseen, so two things cannot be promised here: the same code twice in
        a document gets two draws (the engine's --consistent option ties mentions of one
        entity), and a draw can equal the original by chance (1 in 10 for one digit); the
        engine's leak guard refuses such a draw and takes the next of the k. Empty when the
        shape has no digit or letter: nothing can be redrawn."""
        if not has_classes(shape):
            return ()
        out: dict[str, None] = {}
        for attempt in range(k * MAX_ATTEMPTS):
            drawn = redraw_shape(shape, rng_for("shape", self.seed, doc_id, span_index, attempt))
            out.setdefault(drawn, None)
            if len(out) == k:
                break
        return tuple(out)
