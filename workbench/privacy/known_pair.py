"""The known-pair attack (issue 27): one known original↔pseudonym pair of a document, and the rest.

An attacker who knows one true value of a document and the pseudonym that replaced it (a
date the public judgment states, a name) inverts the run's mapping and applies it to the
other spans of the document:
    dates    the offset between the known original date and its pseudonym (days), applied
             in reverse to every other pseudonym that reads as a calendar day (day and month,
             workbench.text.dates; a date without its year is read in a leap year). Recovered
             when the result is the other span's original day (and year, where it names one).
             One shift per document (the surrogate's default, 002 §3.2) gives every date
             away; a shift per date (`-o date_shift=each`) none.
    values   the known pseudonym → original map applied to every other span whose pseudonym
             equals the known pseudonym, or shares a word that the known pair changed (a
             consistent mapping replaces every mention of an entity alike: knowing "Mr Berg"
             → "Mr Holloway", "Holloway" reads "Berg"; "Mr", kept by the run, reaches nothing).
             Words are mapped by position when the known original and pseudonym have as many
             words; a word the attacker has no map for stays. Recovered when the guess equals
             the span's original (case, white space and punctuation ignored; both in NFC:
             workbench.text.compare, so "Malmö" with a combining diaeresis is "Malmö").
Every span of a document is the known pair in turn (FAILED ones excepted: the attacker
learns nothing from "[FAILED]"), or, with background knowledge (the public text about the
document's individual, workbench.privacy.reid_attacks.background), every span whose original the text states
(its words in order, case and punctuation ignored); results are summed over the choices, so a document with
more pairs weighs more (the share is the mean over every (known pair, other span) attempt).

Which other spans count (the denominator), per known pair:
    - the other mentions of the known pair's entity (its entity_id: the corpus's, or the
      loader's grouping rule), which a consistent mapping gives away;
    - when the known pair is a calendar date: every other span whose original is a calendar
      date, which one shift per document gives away;
    - and any other span the attacker's map reaches (a guess it makes), right or wrong, so a
      map that one pseudonym shares with many originals (a suppression, an unnumbered label)
      pays for its wrong guesses instead of scoring its lucky ones.
The first two come from the corpus alone, the same for every run; the third only adds
attempts. The share recovered is over all three; the share "in scope" over the first two alone
(how much of what one pair should give away it gives, wrong guesses elsewhere not counted).
Each attempt counts under the other span's label and kind ("date" when its original is a
calendar date, "other" otherwise).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import date, timedelta

import pandas as pd

from workbench.prediction_notes import FAILED
from workbench.text.compare import fold, words
from workbench.text.dates import LEAP_YEAR, calendar_day

DATE, OTHER = "date", "other"
COUNTS = ("attempts", "recovered", "in_scope", "in_scope_recovered")


@dataclass(frozen=True, slots=True)
class Pair:
    """One span of a document as the attack reads it: its original and pseudonym, prepared."""
    label: str
    entity: object
    original: str  # normalised: lower-case words joined by one space
    pseudonym: str | None  # normalised, or None when the span FAILED
    original_day: tuple[date, bool] | None  # calendar_day of the original
    pseudonym_day: tuple[date, bool] | None
    word_map: dict  # pseudonym word -> original word, for the words the run changed

    @property
    def kind(self) -> str:
        return DATE if self.original_day is not None else OTHER


def _words(text: str) -> list[str]:
    # Case-blind, in NFC (fold), a word with its combining marks (workbench.text.compare).
    return words(fold(text))


def make_pair(label: str, entity: object, original: str, pseudonym: str, failed: bool) -> Pair:
    failed = failed or pseudonym == FAILED
    o_words, p_words = _words(original), _words(pseudonym)
    word_map = {p: o for p, o in zip(p_words, o_words) if p != o} if len(o_words) == len(p_words) else {}
    return Pair(label, entity, " ".join(o_words), None if failed else " ".join(p_words), calendar_day(original),
                None if failed else calendar_day(pseudonym), {} if failed else word_map)


def date_offset(known: Pair) -> timedelta | None:
    """How far the run moved the known date, when both sides are calendar days written alike."""
    if known.original_day is None or known.pseudonym_day is None or known.original_day[1] != known.pseudonym_day[1]:
        return None
    return known.pseudonym_day[0] - known.original_day[0]


def date_guess(offset: timedelta | None, target: Pair) -> tuple[date, bool] | None:
    """The target's pseudonym moved back by the offset. A date without its year was moved within
    the leap year (the surrogate's rule) and may have crossed into the year before or after: it
    is read in the year from which moving back lands in the leap year (4 May + -327 days is
    12 June of the year before: read in 2000, the leap day between would misplace it by one)."""
    if offset is None or target.pseudonym_day is None:
        return None
    day, has_year = target.pseudonym_day
    try:
        if has_year:
            return day - offset, True
        for year in (LEAP_YEAR - 1, LEAP_YEAR, LEAP_YEAR + 1):
            try:
                moved = day.replace(year=year) - offset
            except ValueError:  # 29 February outside the leap year
                continue
            if moved.year == LEAP_YEAR:
                return moved, False
    except OverflowError:
        pass
    return None


def value_guess(known: Pair, target: Pair) -> str | None:
    """The attacker's reading of the target's original from the known pair's map; None when the
    map does not reach it (neither the same pseudonym nor a word the known pair changed)."""
    if target.pseudonym is None:
        return None
    if target.pseudonym == known.pseudonym:
        return known.original
    words = target.pseudonym.split()
    if not any(w in known.word_map for w in words):
        return None
    return " ".join(known.word_map.get(w, w) for w in words)


def _same_day(guess: tuple[date, bool], original: tuple[date, bool] | None) -> bool:
    if original is None or guess[1] != original[1]:
        return False
    return guess[0] == original[0] if original[1] else guess[0].timetuple()[1:3] == original[0].timetuple()[1:3]


def document_attempts(pairs: list[Pair], knowable: list[bool] | None = None) -> Counter:
    """(label, kind, count) -> n, summed over every known pair of one document; the counts are
    attempts and recovered, and the same for the attempts in scope (the first two kinds of other
    span of the module docstring, without the spans only the map reached). knowable: which spans
    the attacker may know (its background knowledge states their originals); None: every span."""
    counts: Counter = Counter()
    for k, known in enumerate(pairs):
        if known.pseudonym is None or (knowable is not None and not knowable[k]):
            continue
        offset = date_offset(known)
        for t, target in enumerate(pairs):
            if t == k:
                continue
            by_value = value_guess(known, target)
            by_date = date_guess(offset, target)
            same_entity = known.entity not in (None, "") and target.entity == known.entity
            in_scope = same_entity or (known.kind == DATE and target.kind == DATE)
            if not in_scope and by_value is None and by_date is None:
                continue
            recovered = by_value == target.original or (by_date is not None and _same_day(by_date, target.original_day))
            counts[(target.label, target.kind, "attempts")] += 1
            counts[(target.label, target.kind, "recovered")] += int(recovered)
            if in_scope:
                counts[(target.label, target.kind, "in_scope")] += 1
                counts[(target.label, target.kind, "in_scope_recovered")] += int(recovered)
    return counts


def stated_in(background: str):
    """Whether an original is stated in this background text: its words, in order, case and
    punctuation ignored ("3 August 2003" in "... on 3 august, 2003 the court ...")."""
    text = f" {' '.join(_words(background))} "
    return lambda original: bool(_words(original)) and f" {' '.join(_words(original))} " in text


def known_pair_counts(frame: pd.DataFrame, background: dict[str, str] | None = None) -> pd.DataFrame:
    """Per run, label and kind: the COUNTS (columns run_id, label, kind, *COUNTS), over the tidy
    frame's rows (workbench.store.tidy_frame). background: doc_id -> the public text the attacker has
    (workbench.privacy.reid_attacks.background); given, only spans whose original it states are known pairs,
    and a document without a text has none. None: every span in turn."""
    rows = []
    for run_id, run_rows in frame.groupby("run_id", sort=False):
        counts: Counter = Counter()
        for doc_id, doc in run_rows.groupby("doc_id", sort=False):
            knowable = None
            if background is not None:
                stated = stated_in(background.get(doc_id, ""))
                knowable = [stated(original) for original in doc["original"]]
            columns = zip(doc["label"], doc["entity_id"], doc["original"], doc["pseudonym"], doc["failed"])
            counts.update(document_attempts([
                make_pair(label, entity, original, pseudonym, bool(failed))
                for label, entity, original, pseudonym, failed in columns], knowable))
        for label, kind in sorted({(label, kind) for label, kind, _ in counts}):
            rows.append((run_id, label, kind, *(counts[(label, kind, c)] for c in COUNTS)))
    return pd.DataFrame(rows, columns=["run_id", "label", "kind", *COUNTS])


def shares(counts: pd.DataFrame, by: str) -> pd.Series:
    """Recovered / attempts per value of `by` ("kind", "label"), over the rows given."""
    summed = counts.groupby(by, sort=True)[["attempts", "recovered"]].sum()
    return summed["recovered"] / summed["attempts"]
