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

from workbench.surrogates.draws import MAX_ATTEMPTS, random_letter

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

def redraw_shape(shape: str, rng: random.Random, *, digit: str = "d", upper: str = "X", lower: str = "x") -> str:
    """A text of `shape` (digits written `digit`, capitals `upper`, small letters `lower`, every
    other character as itself) with every digit and letter drawn at random."""
    out = []
    for i, c in enumerate(shape):
        if c == digit:
            starts_run = i == 0 or shape[i - 1] != digit
            long_run = i + 1 < len(shape) and shape[i + 1] == digit
            out.append(rng.choice(NONZERO if starts_run and long_run else ANY))
        elif c == upper:
            out.append(random_letter(rng, True))
        elif c == lower:
            out.append(random_letter(rng, False))
        else:
            out.append(c)
    return "".join(out)
