"""String overlap between a pseudonym and the original span (003 §4, Experiment 1), and what
of the original a pseudonym keeps verbatim.

Absolute overlap: the same string, ignoring case and white space. Partial overlap: the
two share at least one word, ignoring case; numerals are excluded (003 counts overlap
"excluding numerals", since "2" replacing "12 March 2002" is not a leak of the date).
Used by the leak guard (003 §5.2) and by the overlap metrics, so both agree. Every rule
compares text as text (workbench.text.compare, issue 37): both sides in Unicode NFC, so an
original written precomposed and a pseudonym written with combining marks (or the other way
round) compare as the same text, and a word keeps its combining marks. All rules here are
case-blind: NFC, then case-folded.

Beyond 003 (issue 24):
content partial overlap  a shared *content* word: function words of the span's language
                         (workbench.text.stopwords) and titles (TITLES) do not count, so
                         "Kingdom of Norway" and "Republic of Turkey" do not overlap, nor do
                         "Mr John Smith" and "Mr Galip Yalman".
verbatim leak            the privacy-side count: numerals included, so an application number
                         copied unchanged ("36110/97") is a leak (see `verbatim_leak`).
"""

from __future__ import annotations

from workbench.text.compare import contains_words, fold, normalise, words
from workbench.text.stopwords import STOPWORDS

# Titles and honorifics that stand before (or after) a name, lower-cased, without the full stop
# of an abbreviation ("Mr." is "mr"). They say nothing about who is meant, so they are never
# content words: not for content partial overlap, not for 004's matching function
# (workbench.privacy.inference_attacks.matching), whose frequent lemmas are counted outside the spans and so
# never leave out a title inside a PERSON span. One list per language; the matching function
# takes the union (a Swedish title is no content word of an English text either).
# "justice" is the English judges' title ("Lord Justice Sedley", "Mr Justice Collins" in TAB).
# Name particles ("De La Cruz", "van Dijk", "af Klercker") are function words of a name's own
# language: shared, they say no more about who is meant than a title does, so they count as
# titles (listed under "names", taken for every language).
TITLES: dict[str, frozenset[str]] = {
    "en": frozenset("""
        mr mrs ms miss mx mister messrs madam madame mme mlle dame sir lord lady
        dr doctor prof professor judge justice rev reverend hon honourable honorable esq jr sr
    """.split()),
    "sv": frozenset("""
        herr hr fru fröken frk doktor dr professor prof docent
    """.split()),
    "names": frozenset("""
        de del della di da du la le van von der ter af zu
    """.split()),
}
ALL_TITLES = frozenset().union(*TITLES.values())

# A code of the original that alone identifies (verbatim_leak): a token holding a digit and
# at least this many letters and digits. Shorter ones (a day "12", a year "2002") are kept by
# chance often enough that keeping one alone is not counted; "36110/97" or "2003-08-03" is.
CODE_LENGTH = 5
_EDGE_PUNCTUATION = "()[]{}<>\"'«»“”‘’.,;:!?"


def _words(text: str) -> set[str]:
    # A numeral is any word made only of digits (with the separators \w keeps: none).
    return {w.casefold() for w in words(text) if not w.isdigit()}


def _normal(text: str) -> str:
    return normalise(text, casefold=True)


def is_title(word: str, lang: str | None = None) -> bool:
    """`word` (any case, with or without an abbreviation's full stop) is a title or honorific of
    `lang` (of any language the workbench knows when `lang` is None), or a name particle."""
    titles = ALL_TITLES if lang is None else TITLES.get(lang, ALL_TITLES) | TITLES["names"]
    return fold(word).rstrip(".") in titles


def content_words(text: str, lang: str) -> set[str]:
    """The lower-cased words of `text` that carry content: not numerals, not function words
    of `lang` (workbench.text.stopwords; none for another language), not titles."""
    stops = STOPWORDS.get(lang, frozenset())
    return {w for w in _words(text) if w not in stops and not is_title(w, lang)}


def absolute_overlap(pseudonym: str, original: str) -> bool:
    """Same string (case and spacing ignored); a purely numeric original never counts."""
    return bool(_words(original)) and _normal(pseudonym) == _normal(original)


def partial_overlap(pseudonym: str, original: str) -> bool:
    """At least one shared non-numeral word; absolute overlap implies partial overlap."""
    return bool(_words(pseudonym) & _words(original))


def content_partial_overlap(pseudonym: str, original: str, lang: str) -> bool:
    """At least one shared content word (content_words): partial overlap without function
    words and titles. Implies partial overlap; an absolute overlap of function words only
    ("the") is none."""
    return bool(content_words(pseudonym, lang) & content_words(original, lang))


def codes(text: str) -> set[str]:
    """The identifying codes of `text` (lower-cased): white-space separated tokens, stripped of
    the punctuation around them, holding a digit and at least CODE_LENGTH letters and digits
    ("36110/97", "2003-08-03", "19800101-1234"; not "12", "2002", "no.")."""
    out = set()
    for token in _normal(text).split(" "):
        token = token.strip(_EDGE_PUNCTUATION)
        if any(c.isdigit() for c in token) and sum(c.isalnum() for c in token) >= CODE_LENGTH:
            out.add(token)
    return out


def verbatim_leak(pseudonym: str, original: str) -> bool:
    """The pseudonym keeps the original verbatim (case and spacing ignored, numerals counted):
    it equals the original, contains the whole original as words of its own ("Smith" ->
    "John Smith"), or contains one of the original's codes (`codes`: "Application no.
    36110/97" -> "36110/97"). An empty pseudonym (suppression) never leaks."""
    original, pseudonym = _normal(original), _normal(pseudonym)
    if not original or not pseudonym:
        return False
    if contains_words(pseudonym, original):
        return True
    return any(contains_words(pseudonym, code) for code in codes(original))


def equals_original(pseudonym: str, original: str) -> bool:
    """The pseudonym is its original: equal once white space is collapsed and case ignored,
    numerals included ("1975" for "1975" counts, unlike absolute_overlap). `workbench generate`
    prints how many a run has (workbench.pipeline.count_equal_to_original); the guard refuses them."""
    return _normal(pseudonym) == _normal(original)


def value_key(text: str) -> str:
    """The form in which equals_original compares two values (NFC; case and white space ignored): the
    corpus-scope leak guard and the borrowed-identities metric keep originals in this form."""
    return _normal(text)


def leaks(candidate: str, original: str) -> bool:
    """What the leak guard refuses: any partial overlap, or the original itself (numerals
    included: the guard promises that no pseudonym equals its original span)."""
    return partial_overlap(candidate, original) or equals_original(candidate, original)
