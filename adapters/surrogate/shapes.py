"""Shape surrogates (002 §3.2 "random numbers of the same length"): digits and letters re-drawn by class.

Every digit becomes a random digit and every letter a random letter of the same case;
everything else (separators, spaces, punctuation) stays, so the length and the layout of an
id, a case number or an amount survive: "43185/98" -> "72604/15", "11/15W.2" -> "38/90K.7".

Leading zeros. When the digits are known (the generator read the original), the first digit
of a run keeps its class: a non-zero first digit stays non-zero, so a number keeps its
magnitude ("70" never becomes "04"); a zero stays zero in a run of two digits or more, so
zero-padding survives ("007" -> "0xx"); a lone "0" becomes 1-9, or it could not change.
When only the shape is known (a "shape"-level label), the first digit of a run of two digits
or more is drawn from 1-9 and a lone digit from 0-9.
"""

from __future__ import annotations

import random

from workbench.adapters.surrogate.draws import MAX_ATTEMPTS, random_letter

# The symbols of workbench.text.shape.shape_of.
DIGIT, UPPER, LOWER = "9", "A", "a"
NONZERO = "123456789"
ANY = "0123456789"


def redraw_digits(run: str, rng: random.Random) -> str:
    """A different run of as many digits, with the leading-zero rule above (digits known)."""
    for _ in range(MAX_ATTEMPTS):
        out = [rng.choice(ANY) for _ in run]
        if run[0] != "0" or len(run) == 1:
            out[0] = rng.choice(NONZERO)
        else:
            out[0] = "0"
        drawn = "".join(out)
        if drawn != run and (drawn != "1" or run == "1"):  # "4 years" never becomes "1 years"
            return drawn
    return drawn  # only "00…0"-like runs where every draw came out equal: vanishingly rare


def redraw_letters(run: str, rng: random.Random) -> str:
    """Random letters, each in the case of the letter it replaces (an initialism, an initial)."""
    for _ in range(MAX_ATTEMPTS):
        drawn = "".join(random_letter(rng, c.isupper()) for c in run)
        if drawn.casefold() != run.casefold():
            return drawn
    return drawn


# --- from the shape alone ---------------------------------------------------------------

def redraw_shape(shape: str, rng: random.Random) -> str:
    """A text of `shape` (workbench.text.shape.shape_of: a digit written "9", a capital "A",
    any other letter "a", every other character as itself) with every digit and letter drawn."""
    out = []
    for i, c in enumerate(shape):
        if c == DIGIT:
            starts_run = i == 0 or shape[i - 1] != DIGIT
            long_run = i + 1 < len(shape) and shape[i + 1] == DIGIT
            out.append(rng.choice(NONZERO if starts_run and long_run else ANY))
        elif c in (UPPER, LOWER):
            out.append(random_letter(rng, c == UPPER))
        else:
            out.append(c)
    return "".join(out)


def has_classes(shape: str) -> bool:
    """Whether a shape holds any digit or letter to redraw."""
    return any(c in (DIGIT, UPPER, LOWER) for c in shape)
