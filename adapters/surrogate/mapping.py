"""The per-document mapping of 002 §3.2 (original word -> surrogate word), as a seeded function.

002 keeps a mapping while it walks a document, so every mention of "Byron" gets the same
pseudonym. Kept as a table, the mapping would depend on which slot came first, and a
resumed run (or the engine's batching) could fill it in another order. Here the surrogate
of a word is drawn by a generator seeded with (run seed, document, label, the word without
case), so the same word gets the same surrogate wherever and whenever it is asked for,
different documents draw independently (002 anonymises each instance on its own), and
nothing needs remembering between slots. The case is applied afterwards: "BERG" and
"Berg" map to "LINDQVIST" and "Lindqvist".
"""

from __future__ import annotations

from workbench.adapters.surrogate.dictionaries import GENDERED, Dictionaries
from workbench.adapters.surrogate.draws import MAX_ATTEMPTS, rng_for
from workbench.adapters.surrogate.numbers import redraw_number_word
from workbench.adapters.surrogate.pieces import case_of, with_case
from workbench.adapters.surrogate.shapes import redraw_digits, redraw_letters
from workbench.adapters.surrogate.table import LabelRule
from workbench.text import origins

FIRST_NAME = "first_name"
# The name dictionaries keep_origin draws by the original's origin (workbench.text.origins).
NAME_DICTIONARIES = frozenset({FIRST_NAME, "last_name", *GENDERED.values()})


class WordMapping:
    """Surrogates of the words, digit runs and initials of one run (its seed and options)."""

    def __init__(self, dictionaries: Dictionaries, seed: int, *, keep_gender: bool = False,
                 keep_origin: bool = False) -> None:
        self.dictionaries = dictionaries
        self.seed = seed
        self.keep_gender = keep_gender
        self.keep_origin = keep_origin
        self._cache: dict[tuple, str] = {}

    def word(self, doc_id: str, lang: str, label: str, rule: LabelRule, word: str,
             gender_hint: str | None = None, span_origin: frozenset[str] | None = None) -> str:
        """A dictionary word for `word`, never the word itself (without case), in its case.

        gender_hint (the pronouns' gender, keep_gender only): a word of a rule with first names that
        no gendered list holds is drawn as a first name of that gender; the hint is part of the draw's
        key, so the same word with and without a hint may get two surrogates (--consistent document
        ties an entity's mentions).

        span_origin (keep_origin only): the origin of the span's name (workbench.text.origins), drawn
        by for a word no list holds (`Bitter` of `Bitter Daisy`), so that whichever word the origin
        metric reads first keeps it; part of that word's key, like the hint."""
        hinted = gender_hint if gender_hint in GENDERED and self._takes_hint(lang, rule, word) else None
        source = GENDERED[hinted] if hinted else self.dictionary_for(lang, rule, word)
        # keep_origin changes the draws of name dictionaries only (places: spans.SurrogateMaker).
        by_origin = self.keep_origin and source in NAME_DICTIONARIES
        own = origins.name_origin(word, lang) if by_origin else None
        borrowed = span_origin if by_origin and own is None else None
        key = ("word", self.seed, doc_id, lang, label.casefold(), word.casefold()) + ((hinted,) if hinted else ()) \
            + (("origin", *sorted(borrowed)) if borrowed else ())
        if key not in self._cache:
            origin = own or borrowed
            drawn = self._of_origin(lang, source, word, key, origin, hinted) if origin else None
            for attempt in range(MAX_ATTEMPTS if drawn is None else 0):
                drawn = self.dictionaries.draw(lang, source, rng_for(*key, attempt))
                if drawn.casefold() != word.casefold():
                    break
            else:  # a dictionary of one word, the word itself: letters are better than a leak
                if drawn is None or drawn.casefold() == word.casefold():
                    drawn = redraw_letters(word, rng_for(*key, "letters"))
            self._cache[key] = drawn
        return with_case(case_of(word), self._cache[key])

    def _takes_hint(self, lang: str, rule: LabelRule, word: str) -> bool:
        """keep_gender, a rule that draws first names, and a word of no known gender."""
        return self.keep_gender and FIRST_NAME in rule.dictionaries and self.dictionaries.gender(lang, word) is None

    def dictionary_for(self, lang: str, rule: LabelRule, word: str) -> str:
        """The first of the rule's dictionaries that holds the word (a country for a country),
        else its default; with keep_gender a first name draws from the list of its gender."""
        source = next((d for d in rule.dictionaries if self.dictionaries.holds(lang, d, word)),
                      rule.default_dictionary)
        if source is None:  # never: the table's loader gives every words rule its dictionaries
            raise ValueError(f"a words rule without dictionaries: {rule}")
        if self.keep_gender and source == FIRST_NAME:
            gender = self.dictionaries.gender(lang, word)
            if gender is not None:
                return GENDERED[gender]
        return source

    def _of_origin(self, lang: str, source: str, word: str, key: tuple, origin: frozenset[str],
                   hint: str | None = None) -> str | None:
        """keep_origin: a name of the origin (one the origin metric counts as keeping it), a first name
        for a first name (of the original's gender with keep_gender), else a last name; None for a
        dictionary of no names, or when nothing of the origin is left to draw (the usual draw then)."""
        if source not in NAME_DICTIONARIES:
            return None
        kind = origins.FIRST if hint or origins.is_first_name(word, origin) else origins.LAST
        if kind == origins.FIRST and self.keep_gender:
            gender = self.dictionaries.gender(lang, word) or origins.first_name_gender(word, origin) or hint
            kind = f"{kind}_{gender}" if gender else kind
        pool = [n for n in origins.names_of_origin(origin, kind) if n.casefold() != word.casefold()]
        return rng_for(*key, "origin").choice(pool) if pool else None

    def digits(self, doc_id: str, label: str, run: str) -> str:
        return redraw_digits(run, rng_for("digits", self.seed, doc_id, label.casefold(), run))

    def letters(self, doc_id: str, label: str, run: str) -> str:
        """Random letters for an initial or initialism ("J.", "DPP"), the same within a document."""
        return redraw_letters(run, rng_for("letters", self.seed, doc_id, label.casefold(), run.casefold()))

    def number_word(self, doc_id: str, lang: str, label: str, word: str) -> str:
        rng = rng_for("number-word", self.seed, doc_id, label.casefold(), word.casefold())
        return with_case(case_of(word), redraw_number_word(word, lang, rng))
