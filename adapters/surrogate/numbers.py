"""Numbers written as words ("three children", "två månader", "fourth day"): redrawn from the same list.

Only the words for one to twenty and the tens, and the ordinals first to twentieth, are
redrawn, each from its own list (a cardinal stays a cardinal); scale words ("hundred",
"million", "miljoner") stay, so "two million" stays an amount in the millions. Swedish
"en"/"ett" (one) are left out: they are also the indefinite article.
"""

from __future__ import annotations

import random

NUMBER_WORDS = {
    "en": ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
           "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty", "thirty",
           "forty", "fifty", "sixty", "seventy", "eighty", "ninety"),
    "sv": ("två", "tre", "fyra", "fem", "sex", "sju", "åtta", "nio", "tio", "elva", "tolv", "tretton", "fjorton",
           "femton", "sexton", "sjutton", "arton", "nitton", "tjugo", "trettio", "fyrtio", "femtio", "sextio",
           "sjuttio", "åttio", "nittio"),
}

ORDINAL_WORDS = {
    "en": ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh",
           "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth",
           "nineteenth", "twentieth"),
    "sv": ("första", "andra", "tredje", "fjärde", "femte", "sjätte", "sjunde", "åttonde", "nionde", "tionde",
           "elfte", "tolfte", "trettonde", "fjortonde", "femtonde", "sextonde", "sjuttonde", "artonde", "nittonde",
           "tjugonde"),
}


def _list_of(word: str, lang: str) -> tuple[str, ...]:
    for lists in (NUMBER_WORDS, ORDINAL_WORDS):
        if word.lower() in lists.get(lang, ()):
            return lists[lang]
    return ()


def is_number_word(word: str, lang: str) -> bool:
    """Only the document's language counts: Swedish "sex" (six) is not a number in English."""
    return bool(_list_of(word, lang))


def redraw_number_word(word: str, lang: str, rng: random.Random) -> str:
    """Another number word of the same language and list, in lower case (the caller restores the case)."""
    words = _list_of(word, lang)
    others = [w for w in words if w != word.lower()]
    return rng.choice(others)
