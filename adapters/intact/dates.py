"""Rule-based generalisation of dates (004 §5.2 "Heuristic rules"): day → month and year → year → decade.

004 generalises dates by rule for common formats, because small LLMs handle numbers badly,
and asks the LLM only for dates the rules cannot read. The date is read by the matching
function's own parser (workbench.privacy.inference_attacks.matching.parse_date: English and Swedish month names
and abbreviations, ordinals, numeric dates day first or ISO), so a date the rules generalise is
one the matching function compares by value. The chain starts one level above the original's
precision (004: "the starting level of abstraction ... reflects the specificity of the
original date"):

    3 August 2003   → August 2003, 2003, the 2000s      (sv: augusti 2003, 2003, 2000-talets första decennium)
    12 March 1999   → March 1999, 1999, the 1990s       (sv: mars 1999, 1999, 1990-talet)
    August 2003     → 2003, the 2000s
    2003            → the 2000s
    3 August        → August
A text that is not a single calendar date ("between 1982 and 1984", "30 years", "Saturday",
"maj" alone) gives no chain: INTACT then asks the LLM, as 004 does.
"""

from __future__ import annotations

from workbench.privacy.inference_attacks.matching import parse_date
from workbench.text.dates import MONTH_NAMES

# The month names of text/dates.py as a reader writes them: English capitalised, Swedish not.
MONTHS = {"en": tuple(name.capitalize() for name in MONTH_NAMES["en"]), "sv": MONTH_NAMES["sv"]}
# Words that may stand around a date inside a span ("on the 3rd of August 2003", "den 3:e augusti
# år 2003"); any other word makes the text something other than a calendar date. Punctuation
# needs no entry: the date reader's tokens are numbers and words only ("August 3rd, 2003").
DATE_FUNCTION_WORDS = frozenset({"on", "the", "of", "in", "at", "den", "i", "på", "år", "året"})


def decade(year: int, lang: str) -> str:
    """The decade of `year` in words. Swedish "1900-talet" and "2000-talet" name centuries (the
    shipped Swedish examples use "1900-talet" for the 20th century), so the first decade of a
    century is "2000-talets första decennium", the written standard; the colloquial
    "nollnolltalet" ("00-talet") has no counterpart for 1900-1909 and says no century. English
    "the 2000s" is the usual name of the decade, as "the 1990s" is."""
    start = year - year % 10
    if lang != "sv":
        return f"the {start}s"
    return f"{start}-talets första decennium" if start % 100 == 0 else f"{start}-talet"


def date_generalisations(text: str, lang: str) -> tuple[str, ...]:
    """The rule chain for `text`, most specific first; () when the rules cannot read it."""
    parsed = parse_date(text, DATE_FUNCTION_WORDS)
    if parsed is None:
        return ()
    day, month, year = parsed
    months = MONTHS.get(lang, MONTHS["en"])
    chain: list[str] = []
    if day is not None and month is not None:
        chain.append(f"{months[month - 1]} {year}" if year is not None else months[month - 1])
    if year is not None and (day is not None or month is not None):
        chain.append(str(year))
    if year is not None:
        chain.append(decade(year, lang))
    return tuple(chain)
