"""What "no closer than chance" is: the mean cosine of unrelated pairs, per language and embedder.

BERTScore's baseline rescaling (Zhang et al. 2020, §3 "Baseline Rescaling"): with b the mean
cosine of random, unrelated pairs, a cosine becomes

    (cos − b) / (1 − b)

so 0 means "as close as two unrelated texts of this language under this embedder" and 1 stays
"identical". Without it e5's cosines (unrelated Swedish words ≈ 0.8) and MiniLM's (≈ 0.2 in
English) cannot be read on one scale, and every Swedish run looks alike.

The unrelated pairs come from UD PUD (corpora/ud-pud), not from the runs being scored: the
baseline is then one number per language and embedder, the same in every report, and PUD's
1,000 sentences are the same news and Wikipedia text in English and Swedish, so the two
languages' baselines are drawn from parallel text. Two kinds, because single words and whole
sentences sit differently in an embedding space:

    word      pairs of distinct PUD content-word forms (UPOS in CONTENT_UPOS), drawn uniformly
              over forms: the baseline for word similarity and for TPS's per-span term
    sentence  pairs of distinct PUD sentences: the baseline for sentence similarity

Pairs are drawn with a fixed seed (BASELINE_SEED), not the report's seed, so changing the
classifier's folds or seed never moves the baseline. The value is cached in the metrics
results cache under the embedder id (which carries `@bfloat16` for bfloat16 vectors, like
the embedding cache), the kind, the pair count, the seed and a hash of the pairs' texts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbench.infra.errors import WorkbenchError
from workbench.infra.paths import pud_treebank
from workbench.loaders.conllu import read_conllu_tokens
from workbench.loaders.files import read_text
from workbench.metrics.backends.cache import content_hash, text_key
from workbench.metrics.backends.embedders import cosine_rows

PUD = "ud-pud"
NONE = "none"  # no rescaling: the rescaled metrics equal the raw ones
SOURCES = (PUD, NONE)
BASELINE_SEED = 13
BASELINE_PAIRS = 1000
WORD, SENTENCE = "word", "sentence"
# Words that carry meaning of their own; names (PROPN) and numerals stand in for the PII
# spans word similarity compares.
CONTENT_UPOS = frozenset({"NOUN", "PROPN", "ADJ", "VERB", "ADV", "NUM"})


@dataclass(frozen=True, slots=True)
class SimilarityBaseline:
    """Mean cosine of unrelated word pairs and of unrelated sentence pairs (0 = no rescaling)."""
    word: float = 0.0
    sentence: float = 0.0
    source: str = NONE  # ud-pud:<pairs>:<seed> or none

    def __post_init__(self) -> None:
        for value in (self.word, self.sentence):
            if not -1.0 <= value < 1.0:
                raise ValueError(f"a similarity baseline must lie in [-1, 1), not {value}")


def rescale(cosines: np.ndarray, baseline: float) -> np.ndarray:
    """BERTScore's (cos − b) / (1 − b): b → 0, 1 → 1, linear in between; not clipped."""
    return (np.asarray(cosines, dtype=np.float64) - baseline) / (1.0 - baseline)


def pud_sentences(lang: str) -> list[str]:
    """The `# text = ` lines of the language's PUD treebank, in file order."""
    path = pud_treebank(lang)
    if not path.is_file():
        raise WorkbenchError(f"the similarity baseline for {lang!r} is drawn from UD PUD, but {path} is missing "
                             "(set WORKBENCH_CORPORA, or MetricConfig(similarity_baseline='none'))")
    prefix = "# text = "
    return [line[len(prefix):].strip() for line in read_text(path).split("\n") if line.startswith(prefix)]


def pud_content_words(lang: str) -> list[str]:
    """Distinct content-word forms of the language's PUD treebank, sorted (a fixed order to draw from)."""
    path = pud_treebank(lang)
    if not path.is_file():
        pud_sentences(lang)  # raises the message above
    return sorted({form for sentence in read_conllu_tokens(path) for form, upos in sentence
                   if upos in CONTENT_UPOS and form.strip()})


def unrelated_pairs(items: list[str], pairs: int, seed: int) -> tuple[list[str], list[str]]:
    """`pairs` (left, right) draws of two different items, uniformly, reproducible for a seed."""
    if len(items) < 2:
        raise WorkbenchError("a similarity baseline needs at least two distinct texts to pair")
    rng = np.random.default_rng(seed)
    left = rng.integers(0, len(items), size=pairs)
    # An offset in 1..n-1 never lands on the left item: no identical pair, which would score 1.
    right = (left + rng.integers(1, len(items), size=pairs)) % len(items)
    return [items[i] for i in left], [items[i] for i in right]


def mean_pair_cosine(embedder, left: list[str], right: list[str]) -> float:
    vectors = embedder.embed(list(left) + list(right))
    return float(cosine_rows(vectors[:len(left)], vectors[len(left):]).mean())


def compute_baseline(embedder, lang: str, cache, *, pairs: int = BASELINE_PAIRS,
                     seed: int = BASELINE_SEED) -> SimilarityBaseline:
    """The word and sentence baselines of one embedder (with `id` and `embed`) for `lang`.
    cache: a JsonCache (the metrics results cache), or None."""
    values = {}
    for kind, items in ((WORD, pud_content_words(lang)), (SENTENCE, pud_sentences(lang))):
        left, right = unrelated_pairs(items, pairs, seed)
        key = text_key(embedder.id, lang, f"similarity-baseline:{PUD}:{kind}:{pairs}:{seed}:"
                                          f"{content_hash(left + right)}")
        found = cache.get_many([key]) if cache is not None else {}
        if key in found:
            values[kind] = float(found[key])
            continue
        values[kind] = mean_pair_cosine(embedder, left, right)
        if cache is not None:
            cache.put_many({key: values[kind]})
    return SimilarityBaseline(values[WORD], values[SENTENCE], f"{PUD}:{pairs}:{seed}")
