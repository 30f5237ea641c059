"""Origin and place fidelity (issue 41 item 1): does a replacement keep where a name or a place
comes from? `Ahmed` -> `Sven` changes what a learner corpus says about its writers, `Kiruna` ->
`Springfield` moves them to another country.

The sources and rules are workbench.text.origins': a personal name's origin is the set of Faker
locales whose name lists hold it, a place's the (country, region) of the GeoNames places of that
name. Person spans are those of workbench.metrics.name_gender.is_person_label, place spans those
of PLACE_LABELS. A span is judged when both its original's and its replacement's origin are
known; unknown is never guessed, and a FAILED or suppressed replacement has none.

    origin_kept         of the judged person spans, the share whose replacement keeps the original's
                        origin (locale sets overlapping by Jaccard >= origins.KEEP_AT)
    origin_overlap      their mean Jaccard overlap (the kept share without its threshold)
    origin_js           Jensen-Shannon divergence (base 2, in [0, 1]) between the origin distributions
                        of the judged originals and of their replacements: each span spreads a weight
                        of one evenly over its locales
    origin_known        of the person spans, the share whose original's origin is known (the source's
                        coverage of the corpus)
    origin_judged       how many person spans were judged (a count)
    place_country_kept  of the judged place spans, the share whose replacement shares a country
    place_region_kept   of the judged place spans where both sides have a region (a city; a country
                        named alone has none), the share sharing (country, region)
    place_js            Jensen-Shannon divergence between the country distributions
    place_known         of the place spans, the share whose original's country is known
    place_judged        how many place spans were judged

The shares are means over spans (so per label, and with an interval); the divergences and counts
are per run.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
import pandas as pd

from workbench.metrics.base import HIGHER, LOWER, NEUTRAL, MetricInfo, per_run, remembered
from workbench.metrics.name_gender import is_person_label
from workbench.text import origins

FAMILY = "origin"
SOURCE = "beyond 003 (issue 41)"
# Labels (lower case) of places, shared with the engine's keep_origin filter.
PLACE_LABELS = origins.PLACE_LABELS
is_place_label = origins.is_place_label
SPAN_METRICS = ("origin_kept", "origin_overlap", "origin_known", "place_country_kept", "place_region_kept",
                "place_known")
METRICS = (
    MetricInfo("origin_kept", "origin kept", FAMILY, 0, 1, HIGHER, SOURCE,
               "of the person spans whose original's and replacement's origin are known (the Faker locales "
               "listing the name), the share whose locale sets overlap by Jaccard >= 0.5"),
    MetricInfo("origin_overlap", "origin overlap", FAMILY, 0, 1, HIGHER, SOURCE,
               "the mean Jaccard overlap of original's and replacement's Faker locale sets over the same spans"),
    MetricInfo("origin_js", "origin JS", FAMILY, 0, 1, LOWER, SOURCE,
               "Jensen-Shannon divergence (base 2) between the origin distributions of the judged originals and "
               "their replacements, each span's weight spread evenly over its locales"),
    MetricInfo("origin_known", "origin known", FAMILY, 0, 1, NEUTRAL, SOURCE,
               "of the person spans, the share whose original name some Faker locale lists (the coverage)"),
    MetricInfo("origin_judged", "origin judged", FAMILY, 0, None, NEUTRAL, SOURCE,
               "how many person spans origin_kept judged (its denominator)"),
    MetricInfo("place_country_kept", "country kept", FAMILY, 0, 1, HIGHER, SOURCE,
               "of the place spans whose original's and replacement's country are known (GeoNames cities of "
               "15,000 or more, countries), the share whose replacement lies in a country of the original's"),
    MetricInfo("place_region_kept", "region kept", FAMILY, 0, 1, HIGHER, SOURCE,
               "of the judged place spans where both have a region (GeoNames admin1), the share sharing one"),
    MetricInfo("place_js", "country JS", FAMILY, 0, 1, LOWER, SOURCE,
               "Jensen-Shannon divergence (base 2) between the country distributions of the judged original "
               "places and their replacements"),
    MetricInfo("place_known", "place known", FAMILY, 0, 1, NEUTRAL, SOURCE,
               "of the place spans, the share whose original the gazetteer knows (the coverage)"),
    MetricInfo("place_judged", "place judged", FAMILY, 0, None, NEUTRAL, SOURCE,
               "how many place spans place_country_kept judged (its denominator)"),
)


def spread(origins_: Iterable[frozenset]) -> dict:
    """The distribution of a list of origin sets: each set adds a weight of one, evenly over its members."""
    weights: dict = {}
    for members in origins_:
        for member in members:
            weights[member] = weights.get(member, 0.0) + 1 / len(members)
    return weights


def jensen_shannon(p: dict, q: dict) -> float:
    """JS divergence in bits (0: the same distribution, 1: disjoint); NaN when either is empty."""
    p_total, q_total = sum(p.values()), sum(q.values())
    if not p_total or not q_total:
        return math.nan
    out = 0.0
    for key in set(p) | set(q):
        a, b = p.get(key, 0) / p_total, q.get(key, 0) / q_total
        m = (a + b) / 2
        out += (a * math.log2(a / m) if a else 0.0) + (b * math.log2(b / m) if b else 0.0)
    return max(0.0, min(1.0, out / 2))


def _gone(frame: pd.DataFrame) -> pd.Series:
    return frame["failed"].astype(bool) | (frame["pseudonym"].fillna("").astype(str).str.strip() == "")


def span_origins(frame: pd.DataFrame, context=None) -> pd.DataFrame:
    """Per row: kind ("person", "place" or None) and the origin sets of original and replacement
    (None where unknown or the replacement is gone); looked up once per context and frame."""
    return remembered(context, FAMILY + ":sets", frame, lambda: _span_origins(frame))


def _span_origins(frame: pd.DataFrame) -> pd.DataFrame:
    kinds, before, after = [], [], []
    for label, lang, original, pseudonym, gone in zip(frame["label"], frame["lang"], frame["original"],
                                                      frame["pseudonym"], _gone(frame)):
        kind = "person" if is_person_label(label) else "place" if is_place_label(label) else None
        find = origins.name_origin if kind == "person" else origins.place_origin if kind == "place" else None
        kinds.append(kind)
        before.append(find(str(original), lang) if find else None)
        after.append(find(str(pseudonym), lang) if find and not gone else None)
    return pd.DataFrame({"kind": kinds, "original_origin": before, "replacement_origin": after}, index=frame.index)


def span_values(frame: pd.DataFrame, context=None) -> pd.DataFrame:
    """Per row (index: the frame's): 1/0/NaN (or the overlap) for each span metric."""
    def compute_values() -> pd.DataFrame:
        found = span_origins(frame, context)
        values = {name: np.full(len(frame), np.nan) for name in SPAN_METRICS}
        for i, (kind, a, b) in enumerate(zip(found["kind"], found["original_origin"], found["replacement_origin"])):
            if kind == "person":
                values["origin_known"][i] = float(a is not None)
                if a is not None and b is not None:
                    overlap = origins.origin_overlap(a, b)
                    values["origin_overlap"][i] = overlap
                    values["origin_kept"][i] = float(overlap >= origins.KEEP_AT)
            elif kind == "place":
                values["place_known"][i] = float(a is not None)
                if a is not None and b is not None:
                    values["place_country_kept"][i] = float(origins.kept(origins.PLACE, a, b))
                    ra, rb = origins.regions(a), origins.regions(b)
                    if ra and rb:
                        values["place_region_kept"][i] = float(bool(ra & rb))
        return pd.DataFrame(values, index=frame.index)
    return remembered(context, FAMILY, frame, compute_values)


def _divergences(frame: pd.DataFrame, context) -> pd.DataFrame:
    found = span_origins(frame, context)
    rows = {}
    for run_id, part in found.groupby(frame["run_id"], sort=False):
        judged = part[part["original_origin"].notna() & part["replacement_origin"].notna()]
        people = judged[judged["kind"] == "person"]
        places = judged[judged["kind"] == "place"]
        rows[run_id] = {
            "origin_js": jensen_shannon(spread(people["original_origin"]), spread(people["replacement_origin"])),
            "place_js": jensen_shannon(spread(map(origins.countries, places["original_origin"])),
                                       spread(map(origins.countries, places["replacement_origin"]))),
        }
    runs = list(dict.fromkeys(frame["run_id"]))
    return pd.DataFrame.from_dict(rows, orient="index").reindex(runs)


def compute(frame: pd.DataFrame, context=None) -> pd.DataFrame:
    values = span_values(frame, context)
    divergences = _divergences(frame, context)
    out = pd.DataFrame({name: per_run(frame, values[name]) for name in SPAN_METRICS})
    out["origin_js"] = divergences["origin_js"]
    out["place_js"] = divergences["place_js"]
    out["origin_judged"] = per_run(frame, values["origin_kept"].notna().astype(float), "sum")
    out["place_judged"] = per_run(frame, values["place_country_kept"].notna().astype(float), "sum")
    return out[[m.name for m in METRICS]]
