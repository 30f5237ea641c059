"""Agreement of each replacement with its original: morphology, form and gender (issue 27 item 1).

Paper 003 checks one grammatical property of a pseudonym, its UPOS. A replacement can have the
right part of speech and still not fit: a Swedish genitive `Farzanas bok` needs `Evas`, not
`Eva`; a capitalised one-word name should not become `van der berg`; a woman should not become
`Erik`. Per span, 1 where the replacement agrees, 0 where not, NaN where there is nothing to
compare; each metric is the mean over its spans (per run, per language, and per label through
workbench.metrics.per_label):

    morph_case / _number / _definite / _gender   the UD feature of the replacement tagged in the
                   pseudonymised document equals the original's tagged in the original
                   (workbench/metrics/agreement_morph.py); judged where the original has the
                   feature and the replacement has one too. A replacement without it (a Swedish
                   PROPN carries Case only, where the tagger read the original as a NOUN) is not
                   judged for it: its word class is UPOS accuracy's business.
    morph_all      every feature judged agrees (spans with at least one judged)
    morph_compared descriptive: of the spans whose original has a feature, the share judged
    capitalisation_agreement, token_count_agreement, shape_agreement   string rules
                   (workbench/metrics/agreement_form.py), every span
    name_gender_agreement   personal-name spans whose original and replacement genders are both
                   known (workbench/metrics/name_gender.py): the same gender
    name_gender_known       descriptive: the share of personal-name spans whose two genders are known

A FAILED or suppressed span keeps nothing of the original's form: it disagrees on every measure
where the original has something to agree with (a feature, any span for the form rules), and is
never tagged; its gender is unknown.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.metrics.agreement_form import capitalisation, shape_class, token_count
from workbench.metrics.agreement_morph import FEATURES, span_features
from workbench.metrics.base import HIGHER, NEUTRAL, MetricInfo, per_run, remembered
from workbench.metrics.name_gender import gender_of, is_person_label

FAMILY = "agreement"
# What of MetricConfig.describe() it reads, the models it loads (workbench.metrics.model_use).
MODEL_SETTINGS = ("tagger",)
SOURCE = "beyond 003 (issue 27)"
FEATURE_METRICS = {f: f"morph_{f.lower()}" for f in FEATURES}
METRICS = (
    *(MetricInfo(name, f"{f} agr.", FAMILY, 0, 1, HIGHER, SOURCE,
                 f"share of spans whose replacement, tagged in the pseudonymised document, has the original's UD {f} "
                 f"(spans whose original and replacement both have {f}; FAILED and suppressed spans disagree)")
      for f, name in FEATURE_METRICS.items()),
    MetricInfo("morph_all", "morph. agr.", FAMILY, 0, 1, HIGHER, SOURCE,
               "share of spans whose every judged UD feature (Case, Number, Definite, Gender) agrees"),
    MetricInfo("morph_compared", "morph. judged", FAMILY, 0, 1, NEUTRAL, SOURCE,
               "of the spans whose original has one of the features, the share whose replacement could be judged "
               "(it has one of them too, or is FAILED/suppressed)"),
    MetricInfo("capitalisation_agreement", "case pattern agr.", FAMILY, 0, 1, HIGHER, SOURCE,
               "share of spans whose replacement has the original's capitalisation (lower, Title, UPPER, mixed, none)"),
    MetricInfo("token_count_agreement", "token count agr.", FAMILY, 0, 1, HIGHER, SOURCE,
               "share of spans whose replacement has as many white-space separated tokens as the original"),
    MetricInfo("shape_agreement", "shape agr.", FAMILY, 0, 1, HIGHER, SOURCE,
               "share of spans whose replacement has the original's shape class (character classes, runs collapsed)"),
    MetricInfo("name_gender_agreement", "name gender agr.", FAMILY, 0, 1, HIGHER, SOURCE,
               "of the personal-name spans whose original and replacement genders are both known (Faker's gendered "
               "first-name lists), the share with the same gender"),
    MetricInfo("name_gender_known", "gender known", FAMILY, 0, 1, NEUTRAL, SOURCE,
               "share of personal-name spans whose original's and replacement's genders are both known"),
)


def gone_spans(frame: pd.DataFrame) -> pd.Series:
    """FAILED or suppressed (empty replacement): nothing of the original's form is left."""
    return frame["failed"].astype(bool) | (frame["pseudonym"].astype(str).str.strip() == "")


def feature_values(original: dict | None, replacement: dict | None, gone: bool) -> dict[str, float]:
    """1/0/NaN per morphological metric for one span (see the module's docstring)."""
    present = original or {}
    values = {name: np.nan for name in (*FEATURE_METRICS.values(), "morph_all", "morph_compared")}
    compared = replacement or {}
    judged = {f: (0.0 if gone else float(compared[f] == present[f]))
              for f in present if gone or f in compared}
    for f, agrees in judged.items():
        values[FEATURE_METRICS[f]] = agrees
    if present:
        values["morph_compared"] = float(bool(judged))
        if judged:
            values["morph_all"] = float(all(judged.values()))
    return values


def form_values(frame: pd.DataFrame, gone: pd.Series) -> pd.DataFrame:
    """1/0 per row for the three string rules; a gone span is 0."""
    pairs = list(zip(frame["original"].astype(str), frame["pseudonym"].astype(str), gone))
    def agree(rule) -> list[float]:
        return [0.0 if lost else float(rule(o) == rule(p)) for o, p, lost in pairs]
    return pd.DataFrame({"capitalisation_agreement": agree(capitalisation),
                         "token_count_agreement": agree(token_count),
                         "shape_agreement": agree(shape_class)}, index=frame.index)


def gender_values(frame: pd.DataFrame, gone: pd.Series) -> pd.DataFrame:
    """Per row: name_gender_agreement (1/0 where both genders are known) and name_gender_known
    (1/0 on personal-name spans); NaN on other labels."""
    agreement, known = [], []
    for label, lang, original, pseudonym, lost in zip(frame["label"], frame["lang"], frame["original"],
                                                     frame["pseudonym"], gone):
        if not is_person_label(label):
            agreement.append(np.nan)
            known.append(np.nan)
            continue
        a = gender_of(lang, str(original))
        b = None if lost else gender_of(lang, str(pseudonym))
        both = a is not None and b is not None
        agreement.append(float(a == b) if both else np.nan)
        known.append(float(both))
    return pd.DataFrame({"name_gender_agreement": agreement, "name_gender_known": known}, index=frame.index)


def span_values(frame: pd.DataFrame, context) -> pd.DataFrame:
    """Per row (index: the frame's): 1/0/NaN for each metric; tagged once per context and frame."""
    def compute() -> pd.DataFrame:
        gone = gone_spans(frame)
        originals, replacements = span_features(frame, context, gone)
        morph = pd.DataFrame([feature_values(o, r, g) for o, r, g in zip(originals, replacements, gone)],
                             index=frame.index,
                             columns=[*FEATURE_METRICS.values(), "morph_all", "morph_compared"], dtype=float)
        return pd.concat([morph, form_values(frame, gone), gender_values(frame, gone)], axis=1)
    return remembered(context, FAMILY, frame, compute)


def compute(frame: pd.DataFrame, context) -> pd.DataFrame:
    values = span_values(frame, context)
    return pd.DataFrame({m.name: per_run(frame, values[m.name]) for m in METRICS})
