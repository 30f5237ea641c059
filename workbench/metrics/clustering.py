"""Clustering utility, NMI (004 §5.5; TAE's NMI): do the pseudonymised documents fall into the
same clusters as the originals?

    1. embed every original document and every pseudonymised document (DocView.pseudo_text,
       the document as the run wrote it, an imported system's own detections included) with the
       language's embedder;
    2. k: for k in 2, 4, 8, 16, 32 (k ≤ documents − 1), cluster the originals with k-means++
       N_CLUSTERINGS times and keep the k of the highest mean silhouette (cosine);
    3. with that k, cluster the originals and the pseudonymised documents N_CLUSTERINGS times
       each (clustering i of both sides seeded alike); NMI (sklearn's
       normalized_mutual_info_score, arithmetic mean) between the two labelings, averaged; their
       spread kept beside it (nmi_sd, nmi_min, nmi_max: issue 40), since TAB's NMI falls in two
       modes depending on how the k-means runs fall, and a caption warns where the range is wider
       than SPREAD_WARNING (spread_note).
1 = the pseudonymised documents cluster exactly as the originals; a run that changes nothing
reads exactly 1 (same vectors, same seeds, same labels). Computed per run over its documents
(those with at least one replaced span; a language's part of a run is a run of its own).

Where this follows TAE (tae/tae.py, get_NMI, commit 8ea9060):
  * k from 2 to 32 doubling (TAE's min_k 2, max_k 32, k_multiplier 2; not every k between);
    chosen by the mean cosine silhouette of the originals' clusterings, ties to the smaller k;
  * N_CLUSTERINGS = 5 clusterings per k, each the best-inertia of N_INIT = 50 k-means++
    initialisations (sklearn KMeans n_init), NMI averaged over the 5;
  * embedder: all-MiniLM-L6-v2 for English (TAE's default), through the similarity metrics'
    embedder and its vector cache (MetricConfig.embedders), so a model path or another
    sentence-transformers id is one setting away;
  * mask marks (TAE's MASKING_MARKS, "PERSON", "DATETIME", …, plus the corpus's own labels)
    are removed from the texts before embedding, from the originals too, as TAE does: a label
    run is read for the text it keeps, not for its labels' words.
Where it differs, and why:
  * seeded: clustering i uses random_state = MetricConfig.seed + i on both sides (TAE draws
    fresh seeds), so a number is reproducible and an unchanged run reads exactly 1 rather than
    TAE's ≈ 1 (TAE's own clustering of the originals against itself varies);
  * a mark (optionally numbered: "PERSON_2"; several in a row: "CODECODE") is removed unless
    it is part of a longer upper-case word: TAE's pattern also cuts "LOC" out of "BLOCK" and
    "DEM" out of "DEMOCRACY". A mark glued to lower case or digits ("LOCimpossible", where a
    span ends inside a word) is removed, as TAE removes it;
  * k is chosen on the originals only, and only the chosen k is clustered on the pseudonymised
    side: TAE clusters every corpus at every k but reads only the chosen one, same result;
  * Swedish documents use the Swedish embedder (multilingual-e5-small): MiniLM reads English.
  * 004 §5.5 itself averaged bert-base-cased token embeddings and chose k by inertia; TAE,
    by the same authors, replaced both, and the issue asks for TAE's recipe.

A suppressed span leaves its sentence without it; a document with nothing left (every word
masked or removed) is embedded as it reads, possibly the empty text, so such documents gather
in one cluster and NMI falls. A run over fewer than MIN_DOCUMENTS documents reads NaN (the
silhouette needs 2 ≤ k ≤ documents − 1); nmi_results gives the reason with it.

Same input, same number: seeds fixed; clustering and silhouette run on one thread
(threadpoolctl), so sums never change order; vectors in float64; documents in doc_id order.
The embeddings are float32 from a neural model: another CPU (other SIMD kernels) can move a
vector by ~1e-7, enough to move a document lying on a cluster border or to swap two k whose
silhouettes tie to that precision. The vector cache pins them per machine: a report over runs
already embedded re-reads the stored vectors. Results are cached on the texts' hash,
embedder and settings (the "results" cache), so a report over runs already scored fits no
k-means again.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from workbench.metrics.backends.cache import content_hash
from workbench.metrics.base import HIGHER, NEUTRAL, MetricInfo
from workbench.metrics.metric_frame import document_views, runs_of

FAMILY = "nmi"
# What of MetricConfig.describe() it reads, the models it loads (workbench.metrics.model_use).
MODEL_SETTINGS = ("embedders", "seed", "dtype")
MIN_K, MAX_K, K_MULTIPLIER = 2, 32, 2  # TAE's defaults
N_CLUSTERINGS = 5  # clusterings averaged per k (TAE n_clusterings, 004 §5.5's "5 runs")
N_INIT = 50  # k-means++ initialisations per clustering, best inertia kept (TAE, 004 §5.5)
MIN_DOCUMENTS = MIN_K + 1
# TAE's MASKING_MARKS (tae/utils.py): the labels anonymisers write; "***" is Presidio's mask.
TAE_MASK_MARKS = ("SENSITIVE", "PERSON", "DEM", "LOC", "ORG", "DATETIME", "QUANTITY", "MISC", "NORP", "FAC", "GPE",
                  "PRODUCT", "EVENT", "WORK_OF_ART", "LAW", "LANGUAGE", "DATE", "TIME", "ORDINAL", "CARDINAL",
                  "DATE_TIME", "NRP", "LOCATION", "ORGANIZATION", "***")
SETTINGS = f"k={MIN_K}..{MAX_K}x{K_MULTIPLIER}|clusterings={N_CLUSTERINGS}|n_init={N_INIT}|marks=tae+labels"
# The caption warns where a run's per-clustering NMIs range wider than this: its mean then hides
# clusterings that disagree (TAB test: 0.45-0.48 in one mode, 0.79-0.86 in the other).
SPREAD_WARNING = 0.10

METRICS = (
    MetricInfo("nmi", "NMI", FAMILY, 0, 1, HIGHER, "004 §5.5; TAE's NMI",
               "normalised mutual information between k-means++ clusterings of the original and the pseudonymised "
               "documents (MiniLM embeddings, k by silhouette on the originals), mean of 5; NaN under 3 documents"),
    MetricInfo("nmi_k", "NMI k", FAMILY, MIN_K, MAX_K, NEUTRAL, "TAE",
               "clusters k chosen by the originals' silhouette (2, 4, 8, 16 or 32)"),
    MetricInfo("nmi_sd", "NMI sd", FAMILY, 0, 1, NEUTRAL, "issue 40",
               f"sample standard deviation (ddof = 1) of the {N_CLUSTERINGS} per-clustering NMIs nmi averages"),
    MetricInfo("nmi_min", "NMI min", FAMILY, 0, 1, NEUTRAL, "issue 40",
               f"the lowest of the {N_CLUSTERINGS} per-clustering NMIs"),
    MetricInfo("nmi_max", "NMI max", FAMILY, 0, 1, NEUTRAL, "issue 40",
               f"the highest of the {N_CLUSTERINGS} per-clustering NMIs"),
)


@dataclass(frozen=True, slots=True)
class NmiResult:
    nmi: float
    k: int | None
    documents: int
    reason: str = ""  # why nmi is NaN; "" when it is a number
    per_clustering: tuple[float, ...] = ()  # the NMI of each of the N_CLUSTERINGS clusterings; nmi is their mean

    @property
    def sd(self) -> float:
        return float(np.std(self.per_clustering, ddof=1)) if len(self.per_clustering) >= 2 else float("nan")

    @property
    def low(self) -> float:
        return min(self.per_clustering) if self.per_clustering else float("nan")

    @property
    def high(self) -> float:
        return max(self.per_clustering) if self.per_clustering else float("nan")


def candidate_ks(documents: int) -> list[int]:
    """2, 4, 8, 16, 32 up to documents − 1 (a silhouette needs a cluster with two members)."""
    ks, k = [], MIN_K
    while k <= min(MAX_K, documents - 1):
        ks.append(k)
        k *= K_MULTIPLIER
    return ks


def mark_pattern(labels) -> re.Pattern:
    """Mask marks, optionally numbered per entity ("PERSON_2", the label-numbered run), one or
    several in a row, not inside a longer upper-case word."""
    marks = sorted({*TAE_MASK_MARKS, *(str(label) for label in labels if str(label).strip())}, key=len, reverse=True)
    return re.compile(r"(?<![A-Z])(?:(?:" + "|".join(map(re.escape, marks)) + r")(?:_\d+)?)+(?![A-Z])")


def without_marks(text: str, pattern: re.Pattern) -> str:
    return pattern.sub("", text).strip()


def kmeans_labels(vectors: np.ndarray, k: int, seed: int) -> np.ndarray:
    from sklearn.cluster import KMeans
    from threadpoolctl import threadpool_limits
    with threadpool_limits(limits=1), warnings.catch_warnings():
        # Fewer distinct vectors than k (over-masked documents all read alike): sklearn warns
        # and returns fewer clusters, which is the measurement.
        warnings.simplefilter("ignore")
        return KMeans(n_clusters=k, init="k-means++", n_init=N_INIT, random_state=seed).fit_predict(vectors)


def silhouette(vectors: np.ndarray, labels: np.ndarray) -> float:
    """Mean cosine silhouette; -1 (the worst) when the labels are not 2 to n − 1 clusters."""
    from sklearn.metrics import silhouette_score
    from threadpoolctl import threadpool_limits
    if not 2 <= len(set(labels.tolist())) <= len(labels) - 1:
        return -1.0
    with threadpool_limits(limits=1):
        return float(silhouette_score(vectors, labels, metric="cosine"))


def choose_k(originals: np.ndarray, seed: int) -> tuple[int | None, dict[int, float]]:
    """The k of the highest mean silhouette over N_CLUSTERINGS clusterings of the originals
    (ties: the smaller k, as TAE's strict comparison); None when no k gives two clusters."""
    means = {k: float(np.mean([silhouette(originals, kmeans_labels(originals, k, seed + i))
                               for i in range(N_CLUSTERINGS)])) for k in candidate_ks(len(originals))}
    best = max(means, key=lambda k: (means[k], -k), default=None)
    return (None, means) if best is None or means[best] <= -1.0 else (best, means)


def clustering_nmis(originals: np.ndarray, pseudonymised: np.ndarray, k: int, seed: int) -> tuple[float, ...]:
    """The NMI of each of the N_CLUSTERINGS clusterings (clustering i seeded seed + i on both sides)."""
    from sklearn.metrics import normalized_mutual_info_score
    return tuple(float(normalized_mutual_info_score(kmeans_labels(originals, k, seed + i),
                                                    kmeans_labels(pseudonymised, k, seed + i)))
                 for i in range(N_CLUSTERINGS))


def run_nmi(originals: list[str], pseudonymised: list[str], embedder, seed: int, cache) -> NmiResult:
    """NMI of one run's documents (texts aligned, marks already removed), through the results cache."""
    n = len(originals)
    if n < MIN_DOCUMENTS:
        return NmiResult(float("nan"), None, n, f"{n} document(s): clustering needs at least {MIN_DOCUMENTS}")
    base = [embedder.id, SETTINGS, str(seed), *originals]
    k_key = "nmi-k:" + content_hash(base)
    # "nmi-spread:": results with their per-clustering NMIs (results stored as "nmi:" had only the mean).
    run_key = "nmi-spread:" + content_hash([*base, "\0pseudonymised", *pseudonymised])
    hit = cache.get_many([k_key, run_key])
    if run_key in hit:
        stored = hit[run_key]
        return NmiResult(**{**stored, "per_clustering": tuple(stored["per_clustering"])})
    vectors = np.asarray(embedder.embed([*originals, *pseudonymised]), dtype=np.float64)
    if k_key in hit:
        k = hit[k_key]["k"]
    else:
        k, silhouettes = choose_k(vectors[:n], seed)
        cache.put_many({k_key: {"k": k, "silhouettes": {str(key): v for key, v in silhouettes.items()}}})
    if k is None:
        result = NmiResult(float("nan"), None, n, "the original documents do not fall into two clusters")
    else:
        nmis = clustering_nmis(vectors[:n], vectors[n:], k, seed)
        result = NmiResult(float(np.mean(nmis)), k, n, per_clustering=nmis)
    cache.put_many({run_key: {"nmi": result.nmi, "k": result.k, "documents": n, "reason": result.reason,
                              "per_clustering": list(result.per_clustering)}})
    return result


def nmi_results(frame: pd.DataFrame, context) -> dict[str, NmiResult]:
    """Per run (frame order): its NmiResult, with the reason where NMI is NaN."""
    pattern = mark_pattern(frame["label"].unique() if "label" in frame else ())
    texts: dict[str, list[tuple[str, str, str]]] = {}  # run -> (lang, original, pseudonymised), doc_id order
    for view in document_views(frame):
        texts.setdefault(view.run_id, []).append((view.lang, without_marks(view.text, pattern),
                                                  without_marks(view.pseudo_text, pattern)))
    out = {}
    for run_id, docs in texts.items():
        embedders = {context.embedder(lang).id: context.embedder(lang) for lang in dict.fromkeys(d[0] for d in docs)}
        if len(embedders) > 1:  # vectors of two models cannot share one clustering
            out[run_id] = NmiResult(float("nan"), None, len(docs), "documents in languages with different embedders")
            continue
        out[run_id] = run_nmi([d[1] for d in docs], [d[2] for d in docs], next(iter(embedders.values())),
                              context.config.seed, context.cache("results"))
    return out


def compute(frame: pd.DataFrame, context) -> pd.DataFrame:
    results = nmi_results(frame, context)
    table = pd.DataFrame({"nmi": {r: v.nmi for r, v in results.items()},
                          "nmi_k": {r: np.nan if v.k is None else v.k for r, v in results.items()},
                          "nmi_sd": {r: v.sd for r, v in results.items()},
                          "nmi_min": {r: v.low for r, v in results.items()},
                          "nmi_max": {r: v.high for r, v in results.items()}}, dtype=float)
    return table.reindex(runs_of(frame))


def spread_note(rows: pd.DataFrame, names) -> str:
    """The caption's warning for the rows (a metric table's) whose per-clustering NMIs range wider
    than SPREAD_WARNING, each named (`names`: row -> run name) with its range and k; "" for none."""
    if not {"nmi_min", "nmi_max"} <= set(rows.columns):
        return ""
    wide = [(row, rows.at[row, "nmi_min"], rows.at[row, "nmi_max"]) for row in rows.index
            if rows.at[row, "nmi_max"] - rows.at[row, "nmi_min"] > SPREAD_WARNING]  # NaN compares False
    if not wide:
        return ""
    where = "; ".join(f"{names[row]} {low:.3f}–{high:.3f} (k = {rows.at[row, 'nmi_k']:.0f})" for row, low, high in wide)
    return (f"NMI is the mean of {N_CLUSTERINGS} seeded k-means clusterings; for some runs they range wider than "
            f"{SPREAD_WARNING:.2f} ({where}): read that NMI as its range, not its mean.")
