"""Clustering NMI (004 §5.5 / TAE; workbench/metrics/clustering.py), worked out by hand.

Six documents on two topics, three about a court and three about soup. A topic embedder makes
the clusterings known: a text with "court" is [1, 0], with "soup" [0, 1], with neither
[1, 1] (normalised). Its vectors are two (or three) points, so k-means++ has one best answer
whatever its seed, and the NMI of two known labelings is computed by hand below.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from tests.helpers.tiny_models import cached_tiny
from tests.metrics.conftest import add_run, make_context
from workbench.data_model import Corpus
from workbench.loaders.validate import RawSpan, build_document
from workbench.metrics import MetricConfig, MetricContext, clustering, compute_metrics, family, metric_frame

TOPICS = [  # (doc_id, text, spans as (start, end, label))
    ("d1", "Per lost in court.", [(0, 3, "PERSON")]),
    ("d2", "Kim won in court.", [(0, 3, "PERSON")]),
    ("d3", "Eva waited at Court Square.", [(0, 3, "PERSON"), (14, 26, "LOC")]),
    ("d4", "Ola made soup.", [(0, 3, "PERSON")]),
    ("d5", "Liv ate soup.", [(0, 3, "PERSON")]),
    ("d6", "Bo loves soup.", [(0, 2, "PERSON")]),
]
IDENTITY = {"d1": ["Per"], "d2": ["Kim"], "d3": ["Eva", "Court Square"], "d4": ["Ola"], "d5": ["Liv"], "d6": ["Bo"]}


class TopicEmbedder:
    id = "test:topic"

    def __init__(self) -> None:
        self.texts: list[str] = []

    def embed(self, texts):
        self.texts += texts
        return np.array([[1.0, 0.0] if "court" in t.lower() else [0.0, 1.0] if "soup" in t.lower() else [1.0, 1.0]
                         for t in texts], dtype=np.float32)


def topic_corpus(docs=TOPICS, name="topics") -> Corpus:
    return Corpus(name, "test", tuple(build_document(name, d, text, "en",
                                                     [RawSpan(a, b, label) for a, b, label in spans])
                                      for d, text, spans in docs))


def topic_context(embedder=None, cache=False, **config) -> MetricContext:
    context = MetricContext(MetricConfig(cache=cache, similarity_baseline="none", **config))
    context.set_embedder("en", embedder or TopicEmbedder())
    return context


def nmi_row(store, pseudonyms, context=None, corpus=None) -> pd.Series:
    frame = metric_frame(store, [add_run(store, corpus or topic_corpus(), pseudonyms, name=str(pseudonyms))])
    result = family("nmi").compute(frame, context or topic_context())
    assert len(result) == 1
    return result.iloc[0]


def entropy(*sizes) -> float:
    n = sum(sizes)
    return -sum(s / n * math.log(s / n) for s in sizes)


def test_a_run_identical_to_the_original_reads_exactly_one(store):
    # The bag-of-words embedder (conftest): six distinct vectors, so k-means' seeds matter; the
    # same vectors under the same seeds give the same labels on both sides.
    row = nmi_row(store, IDENTITY, make_context())
    assert row["nmi"] == 1.0
    assert row["nmi_k"] in (2, 4)  # 2, 4, ... up to 6 - 1 documents


def test_a_document_that_changes_topic_moves_cluster(store):
    # "Court Square" -> "Soup Street": d3 reads as soup. Originals {d1 d2 d3 | d4 d5 d6} (k = 2:
    # k = 4 finds the same two points, silhouette 1 both, the tie goes to the smaller k);
    # pseudonymised {d1 d2 | d3 d4 d5 d6}. Contingency (3 court: 2 + 1; 3 soup: 0 + 3), n = 6:
    # MI = 2/6 ln 2 + 1/6 ln(1/2) + 3/6 ln(3/2); NMI = MI / mean(H(3,3), H(2,4)).
    row = nmi_row(store, {**IDENTITY, "d3": ["Eva", "Soup Street"]})
    mi = 2 / 6 * math.log(2) + 1 / 6 * math.log(1 / 2) + 3 / 6 * math.log(3 / 2)
    assert row["nmi"] == pytest.approx(mi / ((entropy(3, 3) + entropy(2, 4)) / 2), abs=1e-12)
    assert row["nmi_k"] == 2


def test_an_imported_systems_own_detection_is_in_the_document_clustered(store):
    # The system replaced d1's "court" (no corpus span) with "soup": d1 reads as soup, the mirror
    # of the d3 case above (contingency 2 + 1 / 0 + 3), so the same NMI.
    from workbench.store.own_detections import save_own_detections
    run_id = add_run(store, topic_corpus(), IDENTITY)
    save_own_detections(store, run_id, {"d1": [(12, 17, "soup")]})
    embedder = TopicEmbedder()
    row = family("nmi").compute(metric_frame(store, [run_id]), topic_context(embedder)).iloc[0]
    assert "Per lost in soup." in embedder.texts
    mi = 2 / 6 * math.log(2) + 1 / 6 * math.log(1 / 2) + 3 / 6 * math.log(3 / 2)
    assert row["nmi"] == pytest.approx(mi / ((entropy(3, 3) + entropy(2, 4)) / 2), abs=1e-12)


def test_a_suppressed_span_is_removed_from_the_text_that_is_embedded(store):
    embedder = TopicEmbedder()
    row = nmi_row(store, {**IDENTITY, "d3": ["Eva", ""]}, topic_context(embedder))
    assert "Eva waited at ." in embedder.texts  # the document as the run wrote it
    # d3 without "Court Square" reads [1, 1]: nearer to [1, 0] and [1, 0] than to the soup
    # cluster: {d1 d2 d3 | d4 d5 d6} is still the best 2-means, so nothing moved.
    assert row["nmi"] == 1.0


def test_over_masked_documents_gather_in_one_cluster(store):
    # Each document is one span; every one suppressed (or labelled: a mask mark, removed before
    # embedding as TAE does) leaves the empty text: one point, one cluster, NMI 0.
    whole = [("c1", "Court Square", []), ("c2", "Court Road", []), ("c3", "Court Lane", []),
             ("s1", "Soup Bar", []), ("s2", "Soup Shop", []), ("s3", "Soup Hall", [])]
    corpus = topic_corpus([(d, text, [(0, len(text), "LOC")]) for d, text, _ in whole], name="whole")
    for replacement in ("", "LOC"):
        embedder = TopicEmbedder()
        row = nmi_row(store, {d: [replacement] for d, _, _ in whole}, topic_context(embedder), corpus)
        assert row["nmi"] == 0.0 and row["nmi_k"] == 2, replacement
        assert "LOC" not in embedder.texts and "" in embedder.texts


def test_nmi_reaches_metrics_csv_and_table5(store, tmp_path):
    from workbench.reports import write_report
    run_id = add_run(store, topic_corpus(), {**IDENTITY, "d3": ["Eva", "Soup Street"]})
    # A report computes every family: a tiny causal LM for the perplexity metrics (tests/helpers/tiny_models.py)
    # rather than the stand-in they would build (minutes).
    context = topic_context(causal_lm=str(cached_tiny("gpt2")))
    write_report(store, [run_id], tmp_path / "r", formats=("csv",), context=context)
    mi = 2 / 6 * math.log(2) + 1 / 6 * math.log(1 / 2) + 3 / 6 * math.log(3 / 2)
    for name in ("metrics.csv", "table5_beyond.csv"):
        table = pd.read_csv(tmp_path / "r" / name, index_col="run_id")
        assert table.at[run_id, "nmi"] == pytest.approx(mi / ((entropy(3, 3) + entropy(2, 4)) / 2), abs=1e-3), name
    assert pd.read_csv(tmp_path / "r" / "metrics.csv", index_col="run_id").at[run_id, "nmi_k"] == 2


def test_mask_marks_are_removed_unless_inside_a_longer_upper_case_word():
    pattern = clustering.mark_pattern(["CODE"])
    # TAB spans that end inside a word, or touch each other, leave marks glued to their neighbours.
    assert clustering.without_marks("commuting to LOCimpossible, DEM0, nos. CODECODE and LOC_3s", pattern) == \
        "commuting to impossible, 0, nos.  and s"
    assert clustering.without_marks("DEMOCRACY in BLOCK C", pattern) == "DEMOCRACY in BLOCK C"
    assert clustering.without_marks("PERSON_2 met LOC in BLOCK 5, CODE *** DATETIME.", pattern) == \
        "met  in BLOCK 5,   ."  # each mark leaves its spaces


def test_fewer_than_three_documents_read_nan_with_a_reason(store, tiny_corpus):
    # tiny_corpus: two English documents, one Swedish; per language, no part has three.
    run_id = add_run(store, tiny_corpus, {d.doc_id: [s.text for s in d.spans] for d in tiny_corpus.documents})
    frame = metric_frame(store, [run_id])
    table = compute_metrics(frame, make_context(), families=("nmi",), originals=False)
    assert table["nmi"].isna().all() and table["nmi_k"].isna().all()
    results = clustering.nmi_results(frame[frame["lang"] == "en"], make_context())
    assert results[run_id].reason == "2 document(s): clustering needs at least 3"


def test_k_runs_up_to_the_documents_and_doubles_as_tae():
    assert clustering.candidate_ks(2) == []
    assert clustering.candidate_ks(3) == [2]
    assert clustering.candidate_ks(9) == [2, 4, 8]
    assert clustering.candidate_ks(1000) == [2, 4, 8, 16, 32]


def test_a_second_report_reads_the_results_cache_and_fits_nothing(store, tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path / "cache"))
    pseudonyms = {**IDENTITY, "d3": ["Eva", "Soup Street"]}
    frame = metric_frame(store, [add_run(store, topic_corpus(), pseudonyms)])
    fits = []
    fit = clustering.kmeans_labels
    monkeypatch.setattr(clustering, "kmeans_labels", lambda *a: fits.append(a[1:]) or fit(*a))
    first = family("nmi").compute(frame, topic_context(cache=True))
    assert len(fits) == 2 * clustering.N_CLUSTERINGS + clustering.N_CLUSTERINGS * 2  # k = 2, 4; then both sides
    fits.clear()
    second = family("nmi").compute(frame, topic_context(cache=True))  # a new context: a new report
    assert fits == [] and second.equals(first)


def test_the_real_minilm_reads_one_for_the_original_and_less_for_a_topic_swap(store):
    # The packaged all-MiniLM-L6-v2 (the default English embedder), no cache: computed twice
    # from scratch, the same number (seeded, one thread).
    context = lambda: MetricContext(MetricConfig(cache=False))  # noqa: E731
    identity = nmi_row(store, IDENTITY, context())
    assert identity["nmi"] == 1.0 and identity["nmi_k"] in (2, 4)
    swapped = {"d1": ["Per"], "d2": ["Kim"], "d3": ["Eva", "Court Square"],
               "d4": ["the judge"], "d5": ["the court"], "d6": ["the appeal court"]}
    frame = metric_frame(store, [add_run(store, topic_corpus(), swapped, name="swapped")])
    first, again = (family("nmi").compute(frame, context()).iloc[0] for _ in range(2))
    assert first["nmi"] == again["nmi"] and first["nmi_k"] == again["nmi_k"]
    assert 0 <= first["nmi"] <= 1



# Four originals at the corners of a square on the unit circle (embedders' vectors are normalised):
# two 2-means partitions of exactly equal inertia, neighbours paired one way round or the other,
# so which one a clustering finds depends on its seed. The pseudonymised documents form two plain
# clusters, {d1 d2 | d3 d4}: a clustering of the originals that pairs them so reads NMI 1, one
# that pairs {d2 d3 | d4 d1} reads 0. The spread over the clusterings is the measurement.
def _angle(degrees: float) -> list[float]:
    return [math.cos(math.radians(degrees)), math.sin(math.radians(degrees))]


SQUARE = {"Ann": [1.0, 0.0], "Bo": [0.0, 1.0], "Cy": [-1.0, 0.0], "Di": [0.0, -1.0],  # exact: no tie broken
          "Eve": _angle(40), "Fay": _angle(50), "Gus": _angle(220), "Hal": _angle(230)}


class SquareEmbedder:
    id = "test:square"

    def embed(self, texts):
        return np.array([SQUARE[t.split()[0]] for t in texts], dtype=np.float32)


def square_frame(store) -> pd.DataFrame:
    docs = [(f"d{n}", f"{name} went home.", [(0, len(name), "PERSON")]) for n, name in enumerate(SQUARE, 1) if n <= 4]
    pseudonyms = {f"d{n}": [name] for n, name in enumerate(("Eve", "Fay", "Gus", "Hal"), 1)}
    return metric_frame(store, [add_run(store, topic_corpus(docs, name="square"), pseudonyms, name="square")])


def test_the_spread_over_the_clusterings_is_reported_with_k_and_the_same_twice(store):
    frame = square_frame(store)
    [result] = clustering.nmi_results(frame, topic_context(SquareEmbedder())).values()
    per = np.array(result.per_clustering)
    assert len(per) == clustering.N_CLUSTERINGS and set(per.tolist()) == {0.0, 1.0}  # rows and columns both found
    columns = ["nmi", "nmi_sd", "nmi_min", "nmi_max", "nmi_k"]
    row = family("nmi").compute(frame, topic_context(SquareEmbedder())).iloc[0][columns]
    assert row["nmi"] == pytest.approx(per.mean(), abs=1e-12) and row["nmi_k"] == 2
    assert row["nmi_sd"] == pytest.approx(np.std(per, ddof=1), abs=1e-12)
    assert (row["nmi_min"], row["nmi_max"]) == (0.0, 1.0)
    again = family("nmi").compute(frame, topic_context(SquareEmbedder())).iloc[0][columns]  # the same command again
    assert again.equals(row)


def test_a_wide_spread_gets_a_caption_warning_and_a_narrow_one_none(store):
    from workbench.metrics.run_names import run_names
    from workbench.reports.tables import TABLES, table_notes
    spec = next(t for t in TABLES if t.name == "table5_beyond")
    assert {"nmi", "nmi_sd", "nmi_k"} <= {c.metric for c in spec.columns}
    wide = compute_metrics(square_frame(store), topic_context(SquareEmbedder()), families=("nmi",), originals=False)
    note = table_notes(wide, spec)
    name = run_names(wide)[wide.index[0]]  # the run as the table names it
    assert f"range wider than {clustering.SPREAD_WARNING:.2f}" in note and f"{name} 0.000–1.000 (k = 2)" in note
    narrow_frame = metric_frame(store, [add_run(store, topic_corpus(), {**IDENTITY, "d3": ["Eva", "Soup Street"]})])
    narrow = compute_metrics(narrow_frame, topic_context(), families=("nmi",), originals=False)
    assert (narrow["nmi_sd"] == 0.0).all() and (narrow["nmi_min"] == narrow["nmi_max"]).all()
    assert "wider than" not in table_notes(narrow, spec)


class WordSumEmbedder:
    """Each word a fixed random vector (seeded by its letters), a text the sum: documents without
    cluster structure, so which partition k-means finds depends on its seed (a spread over the
    clusterings), as TAB's documents under MiniLM do."""
    id = "test:word-sum"

    def embed(self, texts):
        import zlib
        word = lambda w: np.random.default_rng(zlib.crc32(w.encode())).normal(size=8)  # noqa: E731
        return np.array([sum((word(w) for w in t.lower().split()), np.zeros(8)) for t in texts], dtype=np.float32)


def test_two_reports_from_empty_caches_give_the_same_nmi_spread(store, tmp_path, monkeypatch):
    # The same command twice (the NMI of TAE's nine files, docs/metrics.md): each time a new
    # process's context over an empty results cache, so every k-means is fitted again.
    rng = np.random.default_rng(5)
    vocabulary = [f"w{i}" for i in range(40)]
    names = ["Ann", "Bo", "Cy", "Di", "Ed", "Flo", "Gil", "Hu"]
    docs = [(f"d{n:02}", f"{name} " + " ".join(rng.choice(vocabulary, 5)), [(0, len(name), "PERSON")])
            for n, name in enumerate(names)]
    run_id = add_run(store, topic_corpus(docs, name="words"), {d: ["w1"] for d, _, _ in docs[::2]} |
                     {d: [text.split()[0]] for d, text, _ in docs[1::2]}, name="half")
    frame = metric_frame(store, [run_id])
    fits = []
    fit = clustering.kmeans_labels
    monkeypatch.setattr(clustering, "kmeans_labels", lambda *a: fits.append(a[1:]) or fit(*a))
    # 3 initialisations per clustering rather than 50: a fit in milliseconds, and partitions that
    # differ by seed all the more; the seeding and the one thread are what is tested.
    monkeypatch.setattr(clustering, "N_INIT", 3)
    rows = []
    for cache in ("first", "second"):
        monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path / cache))
        rows.append(clustering.nmi_results(frame, topic_context(WordSumEmbedder(), cache=True))[run_id])
        assert fits, "an empty cache fits every clustering again"
        fits.clear()
    first, second = rows
    assert len(set(first.per_clustering)) > 1  # the seeds matter here: clusterings differ
    assert first == second  # to the last bit: per-clustering NMIs, k, documents
