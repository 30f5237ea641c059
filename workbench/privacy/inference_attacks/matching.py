"""The matching function of paper 004 (§3.2 "Matching", §5.2 "Matching function"): does a guess disclose a span?

An attacker proposes guesses of a replaced span's original text; a guess *discloses* the
original when `match` finds one of these, tried in this order (the first that holds is
reported as the rule):

exact     The guess is the original, lower-cased and with white space collapsed. 004's
          reference code checks this first; it is what a user expects for spans that
          have no content word at all (a case number "12345/02", "three").
date      Only for date spans (labels in DATE_LABELS), and then the only rule besides
          `exact` (004 §5.2: a date generalisation reuses part of the original, "August
          2003" for "3 August 2003", so a partial overlap must not count). Either both
          parse as the same calendar date at the same precision (day, month and year agree,
          and a field missing from one is missing from the other: "3 August 2003" =
          "August 3rd, 2003" = "2003-08-03"), or the sets of their lemmas are equal
          (004's wording: "all lemmas ... are the same"; stop words and punctuation
          left out, ordinals read as numbers, "3rd" = "3"). A guess more precise than the
          original ("3 August 2003" for "2003") does not disclose it, as 004 defines it.
lemma     The content lemmas of the two overlap: one shared lemma suffices (004: "either
          exact or partial" overlap). Content lemmas are the lower-cased lemmas of the
          alphabetic tokens that are neither stop words (the lemmatiser language's list),
          nor titles or honorifics (workbench.text.overlap_rules.TITLES, English and Swedish:
          "Mr", "Judge", "herr", "fru"), nor among the corpus's most frequent lemmas (004:
          "non-alphabetic tokens, stopwords and high-frequency lemmas ... are excluded from
          both"). The titles are listed because 004's frequent lemmas are counted outside
          the spans, so a title inside a PERSON span is never among them, and "Mr John
          Smith" would disclose "Mr Galip Yalman" through "Mr" (issue 24).
acronym   Either side's title-cased words, stop words and titles left out, give an acronym by their
          first letters ("European Court of Human Rights" -> "echr"); it joins that side's
          lemma set, so it matches the other side's acronym or a word ("ECHR"). At least
          two words make an acronym: one word's initial would make "Smith" match "Stockholm".
ngram     Only for named entities (labels in NAMED_ENTITY_LABELS): the two share a
          character 4-gram of their name words (lower-cased surface forms, so "Turkey" and
          "Turkish" share "turk"; 004 §5.2 chose 4-grams for words of one longer base). Name
          words are the content words written in title case on either side (not in capitals:
          the label "PERSON" standing in a document would share "rson" with "Emmerson"): 004's
          code takes the n-grams of the tokens spaCy's English NER marks as entities in both the
          span and the guess; there is no NER for Swedish here, and n-grams of every word would
          match "consultant" with "result" ("sult").

Where 004 is silent, the choices are written next to the rule above and in docs/privacy.md
("Inference attack"). Lemmas come from a real lemmatiser (workbench.privacy.inference_attacks.lemmatiser);
this module only compares what it returns, so the rules can be tested on any `Word`s.

Texts are compared as text (workbench.text.compare, issue 37): the span, the replacement and
every guess are put in Unicode NFC before they are lemmatised, read as dates or compared, so
"Malmö" written with a combining diaeresis (NFD) is "Malmö". The rules are case-blind by
lower-casing, as 004's reference code does (not str.casefold, so that text in NFC gives the
results stored under MATCHER_VERSION 3).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from workbench.text import compare

# The date reader is shared with the surrogate generator, which writes shifted dates back in
# their original format.
from workbench.text.dates import MONTHS as _MONTHS
from workbench.text.dates import cardinal as _cardinal
from workbench.text.dates import parse_date
from workbench.text.overlap_rules import is_title

# Bumped whenever a rule changes: stored results carry it in their attack key.
# 3: titles and honorifics are no content words (issue 24).
MATCHER_VERSION = 3
NGRAM = 4  # 004 §5.2

# Labels whose spans are named entities (004's n-gram rule) and dates (its date rule), for
# the corpora the workbench ships: TAB (PERSON, ORG, LOC, DEM; DATETIME) and PGV-PII in SweLL
# categories (personal_name, institution, geographic; date). Compared case-insensitively.
NAMED_ENTITY_LABELS = frozenset({"person", "org", "loc", "dem", "gpe", "norp",
                                 "personal_name", "institution", "geographic"})
DATE_LABELS = frozenset({"datetime", "date", "time"})


@dataclass(frozen=True, slots=True)
class Word:
    """One token as the lemmatiser saw it."""
    text: str
    lemma: str  # lower-cased
    alpha: bool  # letters only
    stop: bool  # a stop word of the language (by its form or its lemma)
    punct: bool


@dataclass(frozen=True, slots=True)
class Phrase:
    """A span or a guess, reduced to what the rules compare."""
    text: str  # lower-cased, white space collapsed
    lemmas: frozenset[str]  # content lemmas, plus the acronym if there is one
    grams: frozenset[str]  # character n-grams of the content words written as names
    date_lemmas: frozenset[str]  # every lemma but stop words and punctuation, ordinals as numbers
    date: tuple | None  # (day, month, year), None for a field not given; None: not a date
    acronym: str = ""


def normalise(text: str) -> str:
    """NFC, white space collapsed, lower-cased (see the module docstring: lower, not casefold)."""
    return compare.normalise(text, casefold=False).lower()


def is_function_word(word: Word) -> bool:
    """A stop word, or a title or honorific (by its form or its lemma, any language the workbench
    knows): such a word never discloses anything, whatever the span."""
    return word.stop or is_title(word.text) or is_title(word.lemma)


def content_words(words: Sequence[Word], frequent: frozenset[str]) -> list[Word]:
    return [w for w in words if w.alpha and not is_function_word(w) and w.lemma not in frequent]


def acronym_of(words: Sequence[Word]) -> str:
    """First letters of the title-cased words that are neither stop words nor titles, lower-cased;
    "" for fewer than two ("Mr John Smith" and "Ms Jane Smith" are no acronyms of each other)."""
    initials = [w.text[0] for w in words if w.alpha and not is_function_word(w) and w.text.istitle()]
    return "".join(initials).lower() if len(initials) >= 2 else ""


def is_name_word(text: str) -> bool:
    """Written as a name: title case, two letters or more ("Turkey"). Words in capitals are left
    out: acronyms have their own rule, and an entity label standing in the text ("PERSON") would
    share "rson" with "Emmerson"."""
    return len(text) > 1 and text.istitle()


def char_ngrams(word: str, n: int = NGRAM) -> set[str]:
    return {word[i:i + n] for i in range(len(word) - n + 1)}


def phrase(text: str, words: Sequence[Word], frequent: frozenset[str] = frozenset(), n: int = NGRAM) -> Phrase:
    text = compare.nfc(text)
    content = content_words(words, frequent)
    acronym = acronym_of(words)
    lemmas = {w.lemma for w in content} | ({acronym} if acronym else set())
    grams: set[str] = set()
    for w in content:
        if is_name_word(w.text):
            grams |= char_ngrams(w.text.lower(), n)
    # Month names stay even where they are stop words ("may").
    date_lemmas = frozenset(_cardinal(w.lemma) for w in words
                            if not w.punct and w.lemma.strip() and (not w.stop or w.text.lower() in _MONTHS))
    stops = frozenset(w.text.lower() for w in words if w.stop)
    return Phrase(normalise(text), frozenset(lemmas), frozenset(grams), date_lemmas, parse_date(text, stops), acronym)


def match(original: Phrase, guess: Phrase, *, named_entity: bool, is_date: bool) -> str | None:
    """The rule by which `guess` discloses `original` (see the module docstring), or None."""
    if not guess.text:
        return None
    if guess.text == original.text:
        return "exact"
    if is_date:
        if original.date is not None and original.date == guess.date:
            return "date"
        if original.date_lemmas and original.date_lemmas == guess.date_lemmas:
            return "date"
        return None
    shared = original.lemmas & guess.lemmas
    if shared:
        acronyms = {original.acronym, guess.acronym} - {""}
        return "acronym" if shared <= acronyms else "lemma"
    if named_entity and original.grams & guess.grams:
        return "ngram"
    return None


@dataclass(frozen=True, slots=True)
class Hit:
    index: int  # of the first disclosing guess
    rule: str


# --- the matching function over a lemmatiser ------------------------------------------

@dataclass
class Matcher:
    """004's matching function for one language: a lemmatiser (texts -> words per text), the
    corpus's most frequent lemmas, and which labels are named entities and dates."""
    lemmatise: Callable[[Sequence[str]], Sequence[Sequence[Word]]]
    frequent: frozenset[str] = frozenset()
    named_entity_labels: frozenset[str] = NAMED_ENTITY_LABELS
    date_labels: frozenset[str] = DATE_LABELS
    n: int = NGRAM
    _cache: dict[str, Phrase] = field(default_factory=dict, repr=False)

    def phrases(self, texts: Iterable[str]) -> list[Phrase]:
        texts = list(texts)
        todo = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if todo:
            # The lemmatiser reads NFC: a word written with combining marks is one token, its lemma
            # the lemma of the precomposed word (workbench.text.compare).
            for text, words in zip(todo, self.lemmatise([compare.nfc(t) for t in todo])):
                self._cache[text] = phrase(text, words, self.frequent, self.n)
        return [self._cache[t] for t in texts]

    def kind(self, label: str) -> tuple[bool, bool]:
        """(named entity, date) for a span label."""
        key = label.strip().lower()
        return key in self.named_entity_labels, key in self.date_labels

    def first_hit(self, original: str, label: str, guesses: Sequence[str]) -> Hit | None:
        """The first of `guesses` that discloses `original` (a span with `label`), or None."""
        named_entity, is_date = self.kind(label)
        target, *candidates = self.phrases([original, *guesses])
        for i, guess in enumerate(candidates):
            rule = match(target, guess, named_entity=named_entity, is_date=is_date)
            if rule:
                return Hit(i, rule)
        return None

    def discloses(self, original: str, label: str, guess: str) -> str | None:
        hit = self.first_hit(original, label, [guess])
        return hit.rule if hit else None
