"""The agreement family (issue 27 item 1): golden values worked out by hand on a tiny corpus.

Morphology comes from a word-table tagger (MorphTable below), so every feature is known by
hand; one test reads the real Swedish UD tagger on the genitive case the issue names.
"""

from __future__ import annotations

import math
import re

import pytest

from tests.metrics.conftest import add_run, make_context
from workbench.metrics import MetricConfig, MetricContext, metric_frame
from workbench.metrics.agreement import compute, feature_values, span_values
from workbench.metrics.agreement_form import capitalisation, shape_class, token_count
from workbench.metrics.name_gender import gender_of
from workbench.metrics.per_label import label_metrics

# lang -> word -> (UPOS, UD features): what the table tagger says of each token, in any context
# (as the UD treebanks do: Swedish names carry Case, English ones Number).
FEATURES = {
    "sv": {"Farzanas": ("PROPN", "Case=Gen"), "Evas": ("PROPN", "Case=Gen"), "Eva": ("PROPN", "Case=Nom"),
           "Anna": ("PROPN", "Case=Nom"), "Erik": ("PROPN", "Case=Nom"),
           "Bilarna": ("NOUN", "Case=Nom|Definite=Def|Gender=Com|Number=Plur"),
           "Bilen": ("NOUN", "Case=Nom|Definite=Def|Gender=Com|Number=Sing")},
    "en": {w: ("PROPN", "Number=Sing")
           for w in ("Anna", "Smith", "Jones", "IBM", "ACME", "Acme", "Olle", "Per", "Mary", "mary", "Erik")},
}


class MorphTable:
    """Tokens are \\w+ runs and single punctuation marks; features from FEATURES (else none)."""

    name = "morph-table"

    def __init__(self) -> None:
        self.texts_tagged = 0

    def morph_texts(self, lang, texts):
        self.texts_tagged += len(texts)
        return [[(m.start(), m.end(),
                  *FEATURES[lang].get(m.group(), ("PUNCT" if not m.group()[0].isalnum() else "X", "")))
                 for m in re.finditer(r"\w+|[^\w\s]", text)] for text in texts]

    def tag_ranges(self, lang, items):  # the upos family's interface, unused here
        return [None for _ in items]


@pytest.fixture
def agree_corpus():
    from tests.helpers.corpus import document_with_mentions
    from workbench.data_model import Corpus
    return Corpus("agree", "tests/metrics/test_agreement.py", (
        document_with_mentions("agree", "sv-1", "Farzanas bok ligger här. Anna kom hem. Bilarna står ute.",
                               [("Farzanas", "personal_name"), ("Anna", "personal_name"), ("Bilarna", "other")], "sv"),
        document_with_mentions("agree", "en-1", "Anna Smith works at IBM. Olle met Anna.",
                               [("Anna Smith", "PERSON"), ("IBM", "ORG"), ("Olle", "PERSON"), ("Anna", "PERSON")],
                               "en"),
    ))


# Run X keeps the genitive (Evas), one gender (Anna -> Erik) and one number (Bilarna -> Bilen) wrong.
RUN_X = {"sv-1": ["Evas", "Eva", "Bilen"], "en-1": ["Mary Jones", "ACME", "Per", "Erik"]}
# Run Y loses the genitive (Eva), suppresses Bilarna, fails Olle, and changes case and word counts.
RUN_Y = {"sv-1": ["Eva", "Erik", ""], "en-1": ["mary", "Acme", None, "Mary"]}

# (metric, run X, run Y, how): span by span in the order sv Farzanas, Anna, Bilarna; en Anna Smith,
# IBM, Olle, Anna.
GOLDEN = [
    ("morph_case", 3 / 3, 1 / 3, "sv only; Y: Gen->Nom 0, Nom 1, suppressed 0"),
    ("morph_number", 4 / 5, 3 / 5, "Bilarna Plur->Sing 0 (Y: suppressed 0); en Sing 1 (Y: FAILED Olle 0)"),
    ("morph_definite", 1.0, 0.0, "Bilarna only"),
    ("morph_gender", 1.0, 0.0, "Bilarna only (grammatical gender Com)"),
    ("morph_all", 6 / 7, 4 / 7, "X: Bilarna; Y: Farzanas, Bilarna, Olle disagree"),
    ("morph_compared", 1.0, 1.0, "every replacement carries a judged feature or is gone"),
    ("capitalisation_agreement", 1.0, 3 / 7, "Y: suppressed, Title->lower, UPPER->Title, FAILED"),
    ("token_count_agreement", 1.0, 4 / 7, "Y: suppressed, two words->one, FAILED"),
    ("shape_agreement", 1.0, 3 / 7, "Y: suppressed, Aa Aa->a, A->Aa, FAILED"),
    ("name_gender_agreement", 2 / 3, 2 / 3, "X: Anna->Eva, Anna->Mary 1, Anna->Erik 0; Y: Anna->Erik 0, "
                                            "Anna Smith->mary 1, Anna->Mary 1"),
    ("name_gender_known", 3 / 5, 3 / 5, "Farzana(s) and Olle are in no list"),
]


@pytest.fixture
def two_runs(store, agree_corpus):
    x = add_run(store, agree_corpus, RUN_X, name="x")
    y = add_run(store, agree_corpus, RUN_Y, name="y")
    return x, y, metric_frame(store, [x, y])


def table_context(tmp_path=None, **config):
    context = make_context(**config)
    context.set_tagger(MorphTable())
    return context


@pytest.mark.parametrize("metric, x, y, why", GOLDEN, ids=[g[0] for g in GOLDEN])
def test_golden(two_runs, metric, x, y, why):
    run_x, run_y, frame = two_runs
    result = compute(frame, table_context())
    assert math.isclose(result.at[run_x, metric], x), why
    assert math.isclose(result.at[run_y, metric], y), why


def test_genitive_kept_or_lost_span_by_span(two_runs):
    run_x, run_y, frame = two_runs
    values = span_values(frame, table_context())
    farzanas = frame.index[frame["original"] == "Farzanas"]
    by_run = dict(zip(frame.loc[farzanas, "run_id"], values.loc[farzanas, "morph_case"]))
    assert by_run == {run_x: 1.0, run_y: 0.0}  # Evas keeps the genitive, Eva loses it


def test_per_label_and_per_language(two_runs):
    run_x, _, frame = two_runs
    table = label_metrics(frame, table_context(), families=["agreement"])
    person_sv = table[(table["run_id"] == f"{run_x}@sv") & (table["label"] == "personal_name")].iloc[0]
    assert person_sv["morph_case"] == 1.0 and person_sv["name_gender_known"] == 0.5  # Farzanas unknown, Anna known
    other_sv = table[(table["run_id"] == f"{run_x}@sv") & (table["label"] == "other")].iloc[0]
    assert other_sv["morph_number"] == 0.0 and other_sv["morph_all"] == 0.0 and math.isnan(
        other_sv["name_gender_agreement"])
    person_en = table[(table["run_id"] == f"{run_x}@en") & (table["label"] == "PERSON")].iloc[0]
    assert math.isclose(person_en["name_gender_agreement"], 1 / 2)  # Anna Smith->Mary Jones 1, Anna->Erik 0


def test_a_second_report_tags_nothing(two_runs, tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path / "cache"))
    _, _, frame = two_runs
    first, second = MorphTable(), MorphTable()
    for tagger in (first, second):
        context = MetricContext(MetricConfig(cache=True, similarity_baseline="none"))
        context.set_tagger(tagger)
        compute(frame, context)
    assert first.texts_tagged > 0 and second.texts_tagged == 0


def test_a_tagger_without_morphology_leaves_the_features_out(two_runs):
    run_x, _, frame = two_runs
    result = compute(frame, make_context())  # the word-list tagger: UPOS only
    assert math.isnan(result.at[run_x, "morph_all"]) and result.at[run_x, "shape_agreement"] == 1.0


@pytest.mark.parametrize("original, replacement, gone, expected", [
    # The replacement lacks Number (a Swedish PROPN for a NOUN original): Number is not judged, Case is.
    ({"Case": "Nom", "Number": "Sing"}, {"Case": "Nom"}, False,
     {"morph_case": 1.0, "morph_number": math.nan, "morph_all": 1.0, "morph_compared": 1.0}),
    # Nothing the original has is on the replacement: not judged, and morph_compared says so.
    ({"Number": "Sing"}, {}, False, {"morph_number": math.nan, "morph_all": math.nan, "morph_compared": 0.0}),
    # An original without features (an English verb) judges nothing, even when the span is gone.
    ({}, None, True, {"morph_all": math.nan, "morph_compared": math.nan}),
    (None, {"Case": "Nom"}, False, {"morph_case": math.nan, "morph_all": math.nan}),
])
def test_feature_values(original, replacement, gone, expected):
    got = feature_values(original, replacement, gone)
    for name, value in expected.items():
        assert (math.isnan(got[name]) and math.isnan(value)) or got[name] == value, name


@pytest.mark.parametrize("text, pattern", [
    ("Anna Berg", "Title"), ("Anna-Karin", "Title"), ("J. Wołąsiewicz", "Title"), ("O'Brien", "Title"),
    ("EU", "UPPER"), ("IBM AB", "UPPER"), ("läkare", "lower"), ("van Dijk", "mixed"), ("iPhone", "mixed"),
    ("1975", "none"), ("", "none"),
])
def test_capitalisation(text, pattern):
    assert capitalisation(text) == pattern


@pytest.mark.parametrize("text, count, shape", [
    ("Anna Berg", 2, "Aa Aa"), ("Anna", 1, "Aa"), ("K. Zieliński", 2, "A. Aa"), ("36110/97", 1, "9/9"),
    ("2003-08-03", 1, "9-9-9"), ("ABC-123", 1, "A-9"), ("", 0, ""),
])
def test_token_count_and_shape_class(text, count, shape):
    assert token_count(text) == count and shape_class(text) == shape


@pytest.mark.parametrize("lang, name, gender", [
    ("sv", "Anna", "female"), ("sv", "Erik Svensson", "male"), ("sv", "Evas", "female"),  # genitive read as Eva
    ("sv", "Lars", "male"),  # a name ending in s, not the genitive of "Lar"
    ("sv", "Farzana", None), ("en", "Jordan Lee", None),  # in no list; in both lists
    ("en", "Mary's", "female"), ("en", "Mr Smith", None), ("en", "", None),
])
def test_gender_of(lang, name, gender):
    assert gender_of(lang, name) == gender


def test_the_swedish_ud_tagger_reads_the_genitive(store):
    """The real morphologizer (../shared/models/sv_ud_upos): Farzanas and Evas are genitives, Eva is not."""
    from tests.helpers.corpus import document_with_mentions
    from workbench.data_model import Corpus
    corpus = Corpus("gen", "tests/metrics/test_agreement.py", (document_with_mentions(
        "gen", "sv-1", "Farzanas bok ligger på bordet.", [("Farzanas", "personal_name")], "sv"),))
    kept = add_run(store, corpus, {"sv-1": ["Evas"]}, name="kept")
    lost = add_run(store, corpus, {"sv-1": ["Eva"]}, name="lost")
    context = MetricContext(MetricConfig(cache=False, similarity_baseline="none", tagger="spacy"))
    result = compute(metric_frame(store, [kept, lost]), context)
    assert result.at[kept, "morph_case"] == 1.0 and result.at[lost, "morph_case"] == 0.0
