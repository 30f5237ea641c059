"""Pronoun coherence (issue 41 item 2): replacements whose gender contradicts the pronouns that
refer to the original mention.

A name swapped for one of the other gender leaves `she`/`hon` pointing at a person who no longer
fits ("Anna Berg was born in Oslo. She moved ..." -> "Erik Holm was born in Oslo. She moved ...").
No coreference model installs here, so which pronouns refer to a mention is a rule, the same for
every run (the originals' pronouns; the text outside spans is not replaced):

    a person mention is a span of a personal-name label (workbench.metrics.name_gender's
    is_person_label: the UPOS check's NAME_LABELS, PGV-PII's, TAB's and SweLL-style ones); person
    spans separated only by white space ("Anna" "Berg" annotated as two spans) are one mention.
    Its pronouns are the gendered pronouns after it and before the next person mention of the
    document, within its own sentence and the next (workbench.text.sentences, merged across
    spans as every metric reads them); words inside a span are no pronouns.
    EN he/him/his/himself (male), she/her/hers/herself (female); SV han/honom/hans (male),
    hon/henne/hennes (female), hen/henom/hens (neutral: refers to anyone, never a contradiction).
    A mention's pronoun gender is male or female when its gendered pronouns all agree; none
    (no gendered pronoun) and mixed (both: "Anna told him ...", where `him` is someone else) are
    not judged.

    pronoun_contradiction  of the judged spans (a person span whose mention has a pronoun gender
                           and whose replacement's gender is known, by the name-gender agreement's
                           Faker lists: workbench.metrics.name_gender.gender_of; `unknown` is
                           never guessed), the share whose replacement's gender is the other one;
                           lower is better, NaN for a run with no judged span
    pronoun_judged         how many spans were judged (the denominator, a count per run)

A FAILED or suppressed span has no gender: not judged. The rule also reads the originals: how
often an original name's own gender contradicts its pronouns is the rule's noise (docs/metrics.md
gives it for the shipped corpora).
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from workbench.metrics.base import LOWER, NEUTRAL, MetricInfo, per_run, remembered
from workbench.metrics.name_gender import FEMALE, MALE, gender_of, is_person_label
from workbench.text.sentences import merge_across_spans, sentence_of_spans, split_sentences

FAMILY = "pronouns"
SOURCE = "beyond 003 (issue 41)"
NEUTRAL_GENDER = "neutral"
MIXED = "mixed"
PRONOUNS: dict[str, dict[str, str]] = {
    "en": {**dict.fromkeys(("he", "him", "his", "himself"), MALE),
           **dict.fromkeys(("she", "her", "hers", "herself"), FEMALE)},
    "sv": {**dict.fromkeys(("han", "honom", "hans"), MALE),
           **dict.fromkeys(("hon", "henne", "hennes"), FEMALE),
           **dict.fromkeys(("hen", "henom", "hens"), NEUTRAL_GENDER)},
}
_PATTERNS = {lang: re.compile(r"\b(" + "|".join(sorted(words, key=len, reverse=True)) + r")\b", re.IGNORECASE)
             for lang, words in PRONOUNS.items()}
SPAN_METRICS = ("pronoun_contradiction",)  # pronoun_judged is a count, no mean over spans
METRICS = (
    MetricInfo("pronoun_contradiction", "pronoun contra.", FAMILY, 0, 1, LOWER, SOURCE,
               "of the person spans with a gendered pronoun referring to them (after the mention, before the next "
               "person mention, in its sentence or the next) and a replacement of known gender, the share whose "
               "replacement's gender contradicts the pronouns (hen: never)"),
    MetricInfo("pronoun_judged", "pronoun judged", FAMILY, 0, None, NEUTRAL, SOURCE,
               "how many spans pronoun_contradiction judged (its denominator)"),
)


def pronouns_in(text: str, lang: str, start: int, end: int, skip: list[tuple[int, int]]) -> list[tuple[int, str]]:
    """(offset, gender) of each pronoun of the language in text[start:end], none inside a skipped range."""
    pattern = _PATTERNS.get(lang)
    if pattern is None:
        return []
    found = []
    for m in pattern.finditer(text, start, end):
        a, b = m.span()
        # The window's ends may cut a word ("he" of "help"): only whole words of the text count.
        whole = not (a > 0 and text[a - 1].isalnum()) and not (b < len(text) and text[b].isalnum())
        if whole and not any(s < b and a < e for s, e in skip):
            found.append((a, PRONOUNS[lang][m.group().lower()]))
    return found


def pronoun_gender(found: list[tuple[int, str]]) -> str | None:
    """MALE/FEMALE when the gendered pronouns agree, MIXED when they do not, None without one."""
    genders = {g for _, g in found if g != NEUTRAL_GENDER}
    return genders.pop() if len(genders) == 1 else MIXED if genders else None


def mention_pronouns(text: str, lang: str, spans: list[tuple[int, int]], person: list[bool]) -> list[str | None]:
    """Per span (in text order): the pronoun gender of its mention (None for other labels).

    spans are every replaced span of the document, sorted; person says which are person spans."""
    sentences = merge_across_spans(split_sentences(text, lang), spans)
    sentence = sentence_of_spans(sentences, spans)
    groups: list[list[int]] = []  # person mentions: indices of adjacent person spans
    for i, (a, _) in enumerate(spans):
        if not person[i]:
            continue
        last = groups[-1][-1] if groups else None
        if last is not None and spans[last][1] <= a and not text[spans[last][1]:a].strip():
            groups[-1].append(i)
        else:
            groups.append([i])
    out: list[str | None] = [None] * len(spans)
    for n, group in enumerate(groups):
        start = spans[group[-1]][1]
        k = sentence[group[-1]]
        end = sentences[min(k + 1, len(sentences) - 1)][1]
        if n + 1 < len(groups):
            end = min(end, spans[groups[n + 1][0]][0])
        gender = pronoun_gender(pronouns_in(text, lang, start, max(start, end), spans))
        for i in group:
            out[i] = gender
    return out


def span_values(frame: pd.DataFrame, context=None) -> pd.DataFrame:
    """Per row (index: the frame's): pronoun_contradiction 1/0 where judged, else NaN."""
    def compute_values() -> pd.DataFrame:
        values = pd.Series(np.nan, index=frame.index, dtype=float)
        for _, doc in frame.sort_values(["start"], kind="stable").groupby(["run_id", "doc_id"], sort=False):
            person = [is_person_label(label) for label in doc["label"]]
            if not any(person):
                continue
            lang = doc["lang"].iat[0]
            spans = list(zip(doc["start"].tolist(), doc["end"].tolist()))
            genders = mention_pronouns(doc["text"].iat[0], lang, spans, person)
            for index, said, pseudonym, failed in zip(doc.index, genders, doc["pseudonym"], doc["failed"]):
                if said not in (MALE, FEMALE) or failed or not str(pseudonym).strip():
                    continue
                replaced = gender_of(lang, str(pseudonym))
                if replaced is not None:
                    values[index] = float(replaced != said)
        return pd.DataFrame({"pronoun_contradiction": values})
    return remembered(context, FAMILY, frame, compute_values)


def compute(frame: pd.DataFrame, context=None) -> pd.DataFrame:
    values = span_values(frame, context)["pronoun_contradiction"]
    return pd.DataFrame({"pronoun_contradiction": per_run(frame, values),
                         "pronoun_judged": per_run(frame, values.notna().astype(float), "sum")})
