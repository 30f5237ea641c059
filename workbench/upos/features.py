"""UD morphological features of a character range, as the UD taggers' morphologizer gives them.

The features of a range are those of its right-most word (the UPOS span rule of
workbench.upos.base: the last token not tagged PUNCT or SYM), kept to FILTER_FEATURES. A
range whose right-most word runs on past the range's end ("Hong Kong" in "Hong
Kong-polisens") has none: the features describe a word the range only begins, and its
ending lies in the text outside the span (as an English possessive `'s` does).

Used by the morphology filter (workbench.generation.pseudonym_choice); which Swedish spans are
genitives is read apart (workbench.upos.genitive_reading: the tagger's Case=Gen and the form).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from workbench.infra.errors import WorkbenchError
from workbench.upos.base import Tagger, right_most_word

# The features the morphology filter compares (issue 27): case, number and definiteness are
# what a replacement must carry to fit its sentence; Gender is a fact of the word drawn, not of
# the slot, and is measured apart (the agreement metrics), never filtered on.
FILTER_FEATURES = ("Case", "Number", "Definite")

# A tagged text with features: (token start, token end, UPOS, "Feat=Val|Feat=Val") per token.
FeatureTokens = list[tuple[int, int, str, str]]


def parse_features(text: str, keep: Sequence[str] = FILTER_FEATURES) -> dict[str, str]:
    """{"Case": "Gen", ...} from UD's "Case=Gen|Number=Sing" string, only the features in `keep`."""
    pairs = (item.split("=", 1) for item in text.split("|") if "=" in item)
    return {name: value for name, value in pairs if name in keep}


def right_most_features(tokens: FeatureTokens, start: int, end: int) -> dict[str, str]:
    """The FILTER_FEATURES of the range's right-most word; {} when no token overlaps it or that
    word runs on past `end` (see the module docstring)."""
    n = right_most_word(tokens, start, end)
    if n is None or tokens[n][1] > end:
        return {}
    return parse_features(tokens[n][3])


def tag_feature_ranges(tagger: Tagger, lang: str, items: Sequence[tuple[str, int, int]]) -> list[dict[str, str]]:
    """The FILTER_FEATURES of each (text, start, end), each distinct text tagged once by the
    tagger's morphologizer (the same pipeline that gives the UPOS: SpacyTagger.morph_texts)."""
    morph_texts = getattr(tagger, "morph_texts", None)
    if morph_texts is None:
        raise WorkbenchError(f"the tagger {tagger.name} gives no morphological features: --morph-filter "
                             "needs the spaCy UD taggers (--tagger spacy)")
    texts = list(dict.fromkeys(text for text, _, _ in items))
    tagged = dict(zip(texts, morph_texts(lang, texts)))
    return [right_most_features(tagged[text], a, b) for text, a, b in items]


def features_match(wanted: Mapping[str, str], got: Mapping[str, str]) -> bool:
    """Every feature the original has, the candidate has with the same value; a feature the
    original lacks is not required (an English name has no Case to match)."""
    return all(got.get(name) == value for name, value in wanted.items())


def is_genitive(features: Mapping[str, str]) -> bool:
    return features.get("Case") == "Gen"


def span_features(corpus, tagger: Tagger) -> dict[tuple[str, int], dict[str, str]]:
    """The FILTER_FEATURES of every span to replace, tagged in its document: {(doc_id, span
    index): features}. Not kept in the store (as the spans' UPOS are): only the morphology filter
    and reinflecting generators ask, and the tagger's own cache holds nothing of it either."""
    out: dict[tuple[str, int], dict[str, str]] = {}
    by_lang: dict[str, list] = {}
    for d in corpus.documents:
        by_lang.setdefault(d.lang, []).extend((d, i) for i in d.masked_spans)
    for lang, items in by_lang.items():
        found = tag_feature_ranges(tagger, lang, [(d.text, d.spans[i].start, d.spans[i].end) for d, i in items])
        out.update({(d.doc_id, i): f for (d, i), f in zip(items, found)})
    return out


def as_pairs(features: Mapping[str, str]) -> tuple[str, ...]:
    """("Case=Gen", "Number=Sing"): features as a slot carries them (sorted, hashable)."""
    return tuple(f"{name}={value}" for name, value in sorted(features.items()))
