"""Golden values for every metric family, worked out by hand on run A (conftest.RUN_A).

Run A over tiny_corpus: 21 spans in three documents (en-1: 10, en-2: 4, sv-1: 7), one
FAILED ("teacher"), Oslo kept once, Eva Nowak kept, two entity pairs merged into one
pseudonym (Oslo/Paris -> Bergen, Göteborg/Malmö -> Lund).
"""

from __future__ import annotations

import math

import pytest

from tests.metrics.conftest import add_run, make_context
from workbench.metrics import compute_metrics, family
from workbench.metrics.backends.summarisers import Summariser
from workbench.metrics.diversity import document_unique_ratios
from workbench.text.sentences import split_sentences


def value(frame, fam, metric, context=None):
    result = family(fam).compute(frame, context or make_context())
    assert len(result) == 1
    return float(result[metric].iloc[0])


# (family, metric, expected, how it was worked out)
GOLDEN = [
    # 17 distinct forms over 21 spans; four forms twice (Maria Lund, Bergen, Lena Ek, Lund).
    ("diversity", "form_freq_avg", 21 / 17, "21 spans / 17 forms"),
    ("diversity", "form_freq_std", math.sqrt((4 * (13 / 17) ** 2 + 13 * (4 / 17) ** 2) / 16), "ddof=1"),
    ("diversity", "form_freq_min", 1, "most forms once"),
    ("diversity", "form_freq_max", 2, "four forms twice"),
    ("diversity", "unique_forms", 17, "[FAILED] counts as a form"),
    ("diversity", "unique_ratio", (8 / 10 + 4 / 4 + 5 / 7) / 3, "en-1 8/10, en-2 4/4, sv-1 5/7"),
    ("diversity", "multiword_rate", 7 / 21, "Maria Lund x2, Jan Nowak, Eva Nowak, K. Zieliński, Lena Ek x2"),
    ("generation", "failed_rate", 1 / 21, "teacher"),
    ("generation", "seconds_per_span", (10 * 0.2 + 4 * 0.4 + 7 * 0.1) / 21, "per-document seconds"),
    ("overlap", "overlap_partial", 3 / 21, "Oslo, Jan (Jan Nowak), Eva Nowak; 1975->1980 is numerals only"),
    ("overlap", "overlap_absolute", 2 / 21, "Oslo, Eva Nowak"),
    # Tagged in context, "Per" is PROPN like its original; the run's recorded NOUN only counts in the _pick reading.
    ("upos", "upos_accuracy", 19 / 20, "Warsaw has no UPOS; FAILED is wrong"),
    ("upos", "upos_accuracy_pick", 18 / 20, "Warsaw has no UPOS; FAILED and the recorded NOUN for Per are wrong"),
    ("entities", "consistency", 2 / 3, "Anna Berg and Karin Ström consistent, Oslo (Bergen/Oslo) not"),
    ("entities", "merged_entity_rate", 4 / 17, "Oslo+Paris, Göteborg+Malmö among 17 entities with a pseudonym"),
    # Bag-of-words cosines: Oslo=Oslo 1, Eva Nowak 1, Jan Kowalski/Jan Nowak 1/2, every other pair 0.
    ("similarity", "similarity_word", 2.5 / 21, "(1 + 1 + 0.5) / 21"),
    # Per span, the bag-of-words cosine of its sentence (see the comment in test_sentence_similarity).
    ("similarity", "similarity_sentence",
     (3 * 6 / 10 + 2 * 4 / 6 + 2 * 2 / 5 + 2 * 5 / 6 + 3 / 4
      + 3 * 15 / math.sqrt(16 * 18) + 8 / 10
      + 3 * 3 / 7 + 2 * 4 / 6 + 2 * 3 / 6) / 21, "sentence by sentence"),
    # Borrowed identities: only "Jan Nowak" (for Jan Kowalski) shares a name word, Nowak, with another
    # entity of its document (Eva Nowak); "1980" (for 1975) is sv-1's original 1980, another document;
    # "Oslo" for the second Oslo and "Eva Nowak" for Eva Nowak are their own entity's (a leak, not a borrowing).
    ("borrowed", "borrowed_value_document", 0.0, "no pseudonym is another entity's value in its document"),
    ("borrowed", "borrowed_document", 1 / 21, "Jan Nowak"),
    ("borrowed", "borrowed_value_corpus", 1 / 21, "1980"),
    ("borrowed", "borrowed_corpus", 2 / 21, "Jan Nowak, 1980"),
    # Pronouns: Anna Berg -> Maria Lund twice (`She`; `Her` before Olle) and Karin Ström -> Lena Ek
    # (`Hon`) agree; Olle -> Per (`He`) is of unknown English gender; the others have no pronoun.
    ("pronouns", "pronoun_contradiction", 0.0, "no female original became a male name"),
    ("pronouns", "pronoun_judged", 3, "Anna Berg twice, the first Karin Ström"),
    # Origin (Faker's locale lists): Anna Berg -> Maria Lund twice, Jan -> Jan, Eva Nowak -> Eva Nowak and
    # Karin Ström -> Lena Ek twice keep it (the first words' locale sets overlap by 22/37, 1, 1, 9/15);
    # Olle (sv_SE alone) -> Per (four Nordic locales) does not (1/4); J. Wołąsiewicz is in no list.
    ("origin", "origin_kept", 6 / 7, "all judged but Olle -> Per"),
    ("origin", "origin_known", 7 / 8, "J. Wołąsiewicz unknown"),
    ("origin", "origin_judged", 7, "eight person spans, one unknown"),
    # Places (GeoNames): Oslo -> Bergen (a Bergen in Norway), Oslo -> Oslo, Warsaw -> Krakow, Göteborg -> Lund
    # and Malmö -> Lund keep the country; Paris (France, Texas, South Africa) -> Bergen does not. Regions:
    # only Oslo -> Oslo and Malmö -> Lund (Skåne) keep one.
    ("origin", "place_country_kept", 5 / 6, "all but Paris -> Bergen"),
    ("origin", "place_region_kept", 2 / 6, "Oslo -> Oslo, Malmö -> Lund"),
    ("origin", "place_known", 1.0, "every original place is in the gazetteer"),
    ("origin", "place_judged", 6, "six place spans"),
    # Country weights, each span's one spread over its countries: originals NO 2, FR/US/ZA 1/3 each,
    # PL 1, SE 2; replacements (Bergen: Belgium, the Netherlands, Norway) BE 2/3, NL 2/3, NO 5/3, PL 1, SE 2.
    ("origin", "place_js", None, "by hand below"),
    # Run A is generated over the gold spans: its recall is 1 by construction, not measured (the
    # imported runs' recalls are worked out in test_detection.py).
    ("detection", "recall_by_construction", 1.0, "a generated run"),
]


def js_by_hand(p: dict, q: dict) -> float:
    """Jensen-Shannon divergence in bits, the textbook formula."""
    p = {k: v / sum(p.values()) for k, v in p.items()}
    q = {k: v / sum(q.values()) for k, v in q.items()}
    m = {k: (p.get(k, 0) + q.get(k, 0)) / 2 for k in {*p, *q}}
    return sum(d[k] * math.log2(d[k] / m[k]) for d in (p, q) for k in d if d[k]) / 2


BY_HAND = {"place_js": js_by_hand({"NO": 2, "FR": 1 / 3, "US": 1 / 3, "ZA": 1 / 3, "PL": 1, "SE": 2},
                                  {"BE": 2 / 3, "NL": 2 / 3, "NO": 5 / 3, "PL": 1, "SE": 2})}


@pytest.mark.parametrize("fam, metric, expected, why", GOLDEN, ids=[g[1] for g in GOLDEN])
def test_golden(run_a, fam, metric, expected, why):
    _, frame = run_a
    expected = BY_HAND[metric] if expected is None else expected
    # 1e-6: embeddings are float32.
    assert value(frame, fam, metric) == pytest.approx(expected, abs=1e-6), why


def test_upos_accuracy_has_one_definition(run_a):
    # Issue 10 item 4: upos_accuracy ignores the recorded pick UPOS whatever the context says;
    # the pick reading is a metric of its own name, and no setting switches between them.
    from workbench.metrics import MetricConfig
    _, frame = run_a
    result = family("upos").compute(frame, make_context())
    assert result["upos_accuracy"].iat[0] != result["upos_accuracy_pick"].iat[0]
    assert not hasattr(MetricConfig(), "upos_source")


def test_sentence_similarity_worked_example(run_a):
    # en-2's first sentence: 16 distinct words; pseudonymised 15 distinct with "nowak" twice
    # (norm² 18); shared: 13 words once plus nowak 1×2 → 15 / sqrt(16·18).
    from workbench.metrics.similarity import span_pairs
    _, frame = run_a
    pairs = span_pairs(frame)
    first = pairs[frame["doc_id"] == "en-2"].iloc[0]
    assert first["sent_b"] == ("The applicant, Mr Jan Nowak, was represented by Ms Eva Nowak, "
                               "a lawyer practising in Krakow.")
    from workbench.metrics.similarity import pair_cosines
    cos = pair_cosines(make_context(), "en", [first["sent_a"]], [first["sent_b"]])[0]
    assert cos == pytest.approx(15 / math.sqrt(16 * 18), abs=1e-6)


def test_document_unique_ratios(run_a):
    _, frame = run_a
    ratios = document_unique_ratios(frame).set_index("doc_id")["ratio"].to_dict()
    assert ratios == pytest.approx({"en-1": 0.8, "en-2": 1.0, "sv-1": 5 / 7})


class WholeText(Summariser):
    """The 'summary' is the whole document, one sentence per line: ROUGE of the texts themselves."""
    id = "test:whole-text"

    def summarise(self, texts, lang):
        return ["\n".join(t[a:b] for a, b in split_sentences(t, lang)) for t in texts]


def test_rouge_per_document(run_a):
    from workbench.metrics.rouge import document_scores
    _, frame = run_a
    context = make_context()
    context.set_summariser(WholeText())
    scores = document_scores(frame, context).set_index("doc_id")
    # en-2: 26 tokens each side; 22 shared (the x2, mr x2, represented x2, by x2, nowak x1, 13 more once).
    assert scores.at["en-2", "rouge1"] == pytest.approx(22 / 26)
    # sv-1: 19 tokens each side (7 + 6 + 6); shared föddes, i x2, år, hon, arbetar, som, på, bor, nu = 10.
    # With rouge-score's default tokenizer "år" and "på" would lose their letters.
    assert scores.at["sv-1", "rouge1"] == pytest.approx(10 / 19)


def test_classifier_plumbing_with_stub(run_a):
    # 10 sentences with spans -> 20 samples; a classifier answering "pseudonymised" always is right
    # exactly half the time; folds are grouped by document (3 documents -> 3 folds).
    from workbench.metrics import detectability
    _, frame = run_a
    samples = detectability.samples(frame)
    texts, labels, groups = next(iter(samples.values()))
    assert len(texts) == 20 and sum(labels) == 10 and len(set(groups)) == 3

    class Always:
        def fit(self, texts, labels):
            pass

        def predict(self, texts):
            import numpy as np
            return np.ones(len(texts), dtype=int)

    assert detectability.cross_validated_accuracy(texts, labels, groups, Always, 5) == 0.5


def test_tps_worked_example(store):
    # "Anna likes Oslo. Anna likes tea." with spans Anna (first) and Oslo.
    # Word counts anna 2, likes 2, oslo 1, tea 1: N=6, V=4, denominator N+V+1 = 11.
    # IC(anna)=IC(likes)=ln(11/3), IC(oslo)=IC(tea)=ln(11/2).
    # Text spans: [Anna] likes [Oslo] anna likes tea. Replacements: Anna->Bo (cos 0), Oslo->Oslo city (1/√2).
    from workbench.data_model import Corpus
    from workbench.loaders.validate import RawSpan, build_document
    from workbench.metrics import metric_frame
    text = "Anna likes Oslo. Anna likes tea."
    corpus = Corpus("tps", "test", (build_document("t", "d", text, "en", [RawSpan(0, 4, "PERSON"),
                                                                           RawSpan(11, 15, "LOC")]),))
    run_id = add_run(store, corpus, {"d": ["Bo", "Oslo city"]})
    a, o = math.log(11 / 3), math.log(11 / 2)
    expected = (3 * a + o + o / math.sqrt(2)) / (4 * a + 2 * o)
    assert value(metric_frame(store, [run_id]), "tps", "tps") == pytest.approx(expected, abs=1e-6)


def test_compute_metrics_has_original_rows(run_a):
    _, frame = run_a
    table = compute_metrics(frame, make_context(), families=("diversity", "entities", "overlap"))
    # tiny_corpus mixes English and Swedish: rows per language (workbench.metrics.languages).
    assert list(table.index) == ["original:tiny [en]", "original:tiny [sv]", f"{run_a[0]}@en", f"{run_a[0]}@sv"]
    # Distinct originals: en-1 has 10 spans with Anna Berg and Oslo twice (8 forms), en-2 4 -> 12;
    # sv-1 7 with Karin Ström twice -> 6.
    assert table.loc["original:tiny [en]", "unique_forms"] == 12
    assert table.loc["original:tiny [sv]", "unique_forms"] == 6
    original = table.loc["original:tiny [en]"]
    assert original["consistency"] == 1.0
    assert math.isnan(original["overlap_partial"])  # not a metric of the originals


def test_original_rows_of_two_corpora_sharing_a_name_stay_apart(store, tiny_corpus):
    from workbench.data_model import Corpus
    from workbench.metrics import metric_frame
    from workbench.metrics.metric_frame import originals_frame
    smaller = Corpus("tiny", "test", tiny_corpus.documents[:1])  # same name, different content
    first = add_run(store, tiny_corpus, {"en-2": ["A", "B", "C", "D"]}, name="one")
    second = add_run(store, smaller, {"en-1": ["X"] * 10}, name="two")
    ids = set(originals_frame(metric_frame(store, [first, second]))["run_id"])
    assert ids == {f"original:tiny@{tiny_corpus.content_hash[:12]}", f"original:tiny@{smaller.content_hash[:12]}"}
