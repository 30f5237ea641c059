"""UD morphological features of originals and replacements, tagged in context (agreement family).

A span's features are those of the word UPOS accuracy reads (workbench.upos.base.right_most_word:
the right-most token that is not punctuation), so `Anna Svenssons` is in the genitive when
`Svenssons` is. The original is tagged in the original document, the replacement in the
pseudonymised one, by the run's tagger (MetricContext.tagger_for, as the upos family): its
`morph_texts` gives every token's UPOS and UD features (the spaCy UD taggers' morphologizer,
workbench/upos/spacy_backend.py). A tagger without it (stanza here, a test's word list) gives
no features, and the morphological measures are NaN.

Only FEATURES are read: Case, Number, Definite and Gender, the ones a replacement must share to
fit the sentence (Swedish genitive, definite and plural forms; English nouns have Number only).
Tokens are cached per (tagger, language, text) in the metric cache `morph` (MetricContext.cache),
so a second report over the same documents tags nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from workbench.metrics.backends.cache import text_key
from workbench.metrics.metric_frame import document_views
from workbench.upos.base import right_most_word
from workbench.upos.features import parse_features

FEATURES = ("Case", "Number", "Definite", "Gender")
# A tagged text: (start, end, UPOS, "Feat=Value|…") for every token.
MorphTokens = list[tuple[int, int, str, str]]


class CachedMorph:
    """A tagger's morph tokens of each text, looked up by (tagger, language, text) first."""

    def __init__(self, tagger, cache) -> None:
        self.tagger, self.cache = tagger, cache
        self.id = "morph:" + str(getattr(tagger, "backend", None) or tagger.name)
        self.tagged = 0  # texts the tagger itself read (the rest came from the cache)

    def morph_texts(self, lang: str, texts: Sequence[str]) -> list[MorphTokens]:
        keys = [text_key(self.id, lang, t) for t in texts]
        found = self.cache.get_many(list(dict.fromkeys(keys)))
        missing = {k: t for k, t in zip(keys, texts) if k not in found}
        if missing:
            tagged = self.tagger.morph_texts(lang, list(missing.values()))
            self.tagged += len(missing)
            fresh = {k: [list(token) for token in tokens] for k, tokens in zip(missing, tagged)}
            self.cache.put_many(fresh)
            found.update(fresh)
        return [[tuple(token) for token in found[k]] for k in keys]

    def range_features(self, lang: str, items: Sequence[tuple[str, int, int]]) -> list[dict[str, str] | None]:
        """FEATURES of each (text, start, end)'s right-most word ({} where it has none, or where that
        word runs on past the range, as the morphology filter reads it: workbench.upos.features);
        None where no token overlaps the range. Each distinct text is tagged once."""
        texts = list(dict.fromkeys(text for text, _, _ in items))
        tokens = dict(zip(texts, self.morph_texts(lang, texts)))
        starts = {text: [t[0] for t in tokens[text]] for text in texts}
        out: list[dict[str, str] | None] = []
        for text, a, b in items:
            n = right_most_word(tokens[text], a, b, starts[text])
            if n is None:
                out.append(None)
            else:
                runs_on = tokens[text][n][1] > b  # "Hong Kong" in "Hong Kong-polisens": the word's ending is outside
                out.append({} if runs_on else parse_features(tokens[text][n][3], FEATURES))
        return out


def morph_tagger(context, recorded: str | None) -> CachedMorph | None:
    """The run's tagger with its morph tokens cached, or None where it has no morphologizer."""
    tagger = context.tagger_for(recorded)
    if not hasattr(tagger, "morph_texts"):
        return None
    return CachedMorph(tagger, context.cache("morph"))  # the cache object, and what it holds, is the context's


def span_features(frame: pd.DataFrame, context, gone: pd.Series) -> tuple[pd.Series, pd.Series]:
    """(original's, replacement's) FEATURES per row, tagged in context: a dict, or None where there
    is no token, no morphologizer, or (replacement) the span is gone (FAILED or suppressed)."""
    originals = pd.Series([None] * len(frame), index=frame.index, dtype=object)
    replacements = originals.copy()
    if frame.empty:
        return originals, replacements
    # Per (tagger, language): one batched call for the originals and one for the replacements.
    queries: dict[tuple[int, str], tuple[CachedMorph, list, list]] = {}
    taggers = {name: morph_tagger(context, name) for name in frame["tagger"].unique()}
    for view in document_views(frame):
        tagger = taggers[frame.at[view.rows[0], "tagger"]]
        if tagger is None:
            continue
        _, wanted_o, wanted_r = queries.setdefault((id(tagger), view.lang), (tagger, [], []))
        for row, (a, b), (c, d) in zip(view.rows, view.spans, view.placed):
            wanted_o.append((row, (view.text, a, b)))
            if not gone.at[row]:
                wanted_r.append((row, (view.pseudo_text, c, d)))
    for (_, lang), (tagger, wanted_o, wanted_r) in queries.items():
        for target, wanted in ((originals, wanted_o), (replacements, wanted_r)):
            for (row, _), features in zip(wanted, tagger.range_features(lang, [q for _, q in wanted])):
                target.at[row] = features
    return originals, replacements
