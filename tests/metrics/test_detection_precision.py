"""TAB's precision weighted by information content (workbench/metrics/detection_precision.py),
worked out by hand: on the system's masked character ranges per document, then through the
detection family on an imported run (test_detection.py's import over tiny_corpus).
"""

from __future__ import annotations

import math

import pytest

from tests.exchange.test_import_alignment import write
from tests.metrics.conftest import WordListTagger, make_context
from tests.metrics.test_detection import import_file, imported  # noqa: F401  (imported: the fixture)
from workbench.exchange.importers import import_run
from workbench.infra.errors import WorkbenchError
from workbench.metrics import detection_precision as dp
from workbench.metrics import family, metric_frame
from workbench.metrics.detection_precision import (
    DocumentMasks,
    UniformWeights,
    WordFrequencyWeights,
    covered,
    ic_weighted_precision,
    masked_tokens,
)


class TableWeights:
    """A hand-written information content per word."""

    def __init__(self, table: dict[str, float]) -> None:
        self.table = table

    def weights(self, text, tokens):
        return [self.table[text[a:b]] for a, b in tokens]


def _never(*_):
    raise AssertionError("no weights are needed when every masked word lies in a gold span")


#        0         1         2
#        0123456789012345678901234567890
TEXT = "Mr Anna Berg met Olle in Oslo."
GOLD = ((3, 12), (17, 21))  # "Anna Berg", "Olle"
# The system masked "Mr Anna Berg" (one word too many, "Mr") and "Oslo" (not a gold span); it missed "Olle".
DOC = DocumentMasks(TEXT, ((0, 12), (25, 29)), GOLD)
WEIGHTS = TableWeights({"Mr": 0.5, "Anna": 4.0, "Berg": 6.0, "Oslo": 3.0, "Eva": 2.0})


def test_masked_ranges_are_split_into_words_each_counted_once():
    assert masked_tokens(TEXT, [(0, 12), (3, 7), (25, 29)]) == [(0, 2), (3, 7), (8, 12), (25, 29)]
    assert masked_tokens(TEXT, [(3, 6)]) == [(3, 6)]  # TAB splits the masked range, not the text's words


def test_a_word_is_a_true_positive_only_when_one_gold_span_covers_it_whole():
    assert covered((3, 7), GOLD) and covered((8, 12), GOLD)
    assert not covered((0, 2), GOLD) and not covered((2, 7), GOLD)
    assert not covered((3, 12), ((3, 7), (8, 12)))  # two gold spans side by side do not make one


def test_precision_weighs_each_masked_word_by_its_information_content():
    # In gold: Anna 4 + Berg 6 = 10; masked: Mr 0.5 + Anna 4 + Berg 6 + Oslo 3 = 13.5.
    assert ic_weighted_precision([DOC], WEIGHTS) == pytest.approx(10 / 13.5)
    assert ic_weighted_precision([DOC], UniformWeights()) == pytest.approx(2 / 4)


def test_documents_are_pooled_as_tab_micro_averages():
    other = DocumentMasks("Eva left.", ((0, 3),), ((0, 3),))  # Eva 2, in gold
    assert ic_weighted_precision([DOC, other], WEIGHTS) == pytest.approx(12 / 15.5)  # not (10/13.5 + 1) / 2


class _PerWord:
    def __init__(self, weight: float) -> None:
        self.weight = weight

    def weights(self, text, tokens):
        return [self.weight] * len(tokens)


def test_each_language_gets_its_own_weights_made_once():
    docs = [DocumentMasks("Oslo is big.", ((0, 4), (8, 11)), ((0, 4),), "en"),  # Oslo in gold, "big" not
            DocumentMasks("Malmö är stor.", ((0, 5),), ((0, 5),), "sv"),
            DocumentMasks("Bergen too.", ((7, 10),), ((0, 6),), "en")]  # "too" not in gold
    made = []

    def per_language(lang):
        made.append(lang)
        return _PerWord({"en": 1.0, "sv": 3.0}[lang])
    # in gold: Oslo 1 + Malmö 3; masked: Oslo 1 + big 1 + Malmö 3 + too 1
    assert ic_weighted_precision(docs, per_language) == pytest.approx(4 / 6)
    assert made == ["en", "sv"]


def test_all_masked_words_in_gold_spans_is_precision_one_without_any_weights():
    inside = DocumentMasks(TEXT, ((3, 12),), GOLD)
    assert ic_weighted_precision([inside], _never) == 1.0


def test_a_run_that_masked_no_word_has_no_precision():
    assert math.isnan(ic_weighted_precision([DocumentMasks(TEXT, (), GOLD), DocumentMasks(TEXT, ((2, 3),), GOLD)],
                                            _never))  # (2, 3) is a space: no word


def test_word_frequency_weights_are_add_one_smoothed_bits():
    weights = WordFrequencyWeights(["a a b"])  # a: 2, b: 1; total 3 words + 2 types + 1 unseen = 6
    assert weights.weights("a b c", [(0, 1), (2, 3), (4, 5)]) == pytest.approx(
        [-math.log2(3 / 6), -math.log2(2 / 6), -math.log2(1 / 6)])


def test_the_default_model_falls_back_to_the_offline_mlm_then_to_word_frequencies(monkeypatch):
    def offline_only(ref, lang):
        if ref != "offline":
            raise WorkbenchError("the masked LM 'google-bert/bert-base-uncased' is not here. Give a path")
        return object()
    monkeypatch.setattr(dp, "_load", offline_only)
    said = []
    weights = dp.information_weights(dp.TAB_IC_MODEL, "en", ["a"], log=said.append)
    assert isinstance(weights, dp.MaskedLMWeights) and weights.note.startswith("offline")
    assert "offline masked LM instead" in said[0]

    def nothing(ref, lang):
        raise WorkbenchError(f"{ref} is not here. Build it")
    monkeypatch.setattr(dp, "_load", nothing)
    weights = dp.information_weights(dp.TAB_IC_MODEL, "en", ["a a b"], log=said.append)
    assert isinstance(weights, WordFrequencyWeights) and "word frequencies" in said[1]
    with pytest.raises(WorkbenchError, match="my-model is not here"):  # a model the user named: no fallback
        dp.information_weights("my-model", "en", ["a"], log=said.append)


def test_the_masked_lm_answers_are_cached_by_model_text_and_tokens():
    from workbench.metrics.backends.cache import JsonCache

    class Counting:
        identity, note, calls = "ic-weights:fake", "fake", 0

        def weights(self, text, tokens):
            Counting.calls += 1
            return [float(len(text[a:b])) for a, b in tokens]
    cache = JsonCache(None)
    first = dp.CachedWeights(Counting(), cache)
    assert first.weights(TEXT, [(3, 7), (25, 29)]) == [4.0, 4.0] and Counting.calls == 1
    again = dp.CachedWeights(Counting(), cache)  # another report over the same cache
    assert again.weights(TEXT, [(3, 7), (25, 29)]) == [4.0, 4.0] and Counting.calls == 1
    assert again.weights(TEXT, [(3, 7)]) == [4.0] and Counting.calls == 2  # other tokens: computed


@pytest.mark.slow  # builds the offline English MLM where the cache has none (minutes on 2 cores)
def test_the_offline_mlm_gives_a_name_more_information_than_a_function_word(offline_en):
    # A trained model's output (a rare name surprises it more than "the"): the offline MLM, built on demand.
    weights = dp.MaskedLMWeights(dp._load("offline", "en"), "offline")
    text = "The applicant was born in Trondheim and lives there with the family."
    the, town = (text.index(" the ") + 1, text.index(" the ") + 4), (26, 35)
    assert text[the[0]:the[1]] == "the" and text[town[0]:town[1]] == "Trondheim"
    ic_the, ic_town = weights.weights(text, [the, town])
    assert 0 <= ic_the < ic_town


def test_an_imported_run_whose_changes_all_lie_in_gold_spans_has_precision_one(imported, monkeypatch):  # noqa: F811
    monkeypatch.setattr("workbench.metrics.detection.information_weights", lambda *a, **k: _never())
    run_id, frame = imported
    row = family("detection").compute(frame, make_context()).loc[run_id]
    assert row["precision_ic"] == 1.0 and row["precision_token"] == 1.0


def test_own_detections_outside_gold_spans_lower_precision(tmp_path, store, tiny_corpus, monkeypatch):
    """test_detection's import plus one entry outside every gold span, "born" in en-1: 22 words changed in
    gold spans (test_detection's docstring: 9 + 5 + 8, "Kowals" of the spliced span among them) and
    "born", weighing 4 against 1."""
    monkeypatch.setattr("workbench.metrics.detection.information_weights", lambda *a, **k: _Weighted())
    text = tiny_corpus.document("en-1").text
    born = text.index("born")
    entries = import_file(tiny_corpus)
    entries["en-1"].append([born, born + 4, "X"])
    run = import_run(store, write(tmp_path, entries), tiny_corpus, tagger=WordListTagger())
    frame = metric_frame(store, [run.run_id])
    assert frame.loc[frame["doc_id"] == "en-1", "own_detections"].iat[0] == ((born, born + 4, "X"),)
    row = family("detection").compute(frame, make_context()).loc[run.run_id]
    assert row["precision_token"] == pytest.approx(22 / 23)
    assert row["precision_ic"] == pytest.approx(22 / 26)
    assert row["recall_token"] == pytest.approx(22 / 28)  # recall reads the gold spans alone


def test_an_own_detection_that_wrote_its_text_back_masked_nothing(imported):  # noqa: F811
    run_id, frame = imported
    text = frame.loc[frame["doc_id"] == "en-1", "text"].iat[0]
    born = text.index("born")
    kept = frame.copy()
    kept["own_detections"] = [((born, born + 4, "born"),) if d == "en-1" else () for d in frame["doc_id"]]
    assert family("detection").compute(kept, make_context()).loc[run_id, "precision_token"] == 1.0


class _Weighted:
    """"born" weighs 4, every other word 1."""

    def weights(self, text, tokens):
        return [4.0 if text[a:b] == "born" else 1.0 for a, b in tokens]


def test_a_run_generated_on_the_gold_spans_has_precision_one_by_construction(store, tiny_corpus):
    from tests.metrics.conftest import add_run
    run_id = add_run(store, tiny_corpus, {d.doc_id: ["Xyz"] * len(d.spans) for d in tiny_corpus.documents})
    row = family("detection").compute(metric_frame(store, [run_id]), make_context()).loc[run_id]
    assert math.isnan(row["precision_ic"]) and math.isnan(row["precision_token"])
    assert row["recall_by_construction"] == 1.0


def test_the_ic_model_is_named_in_the_caption_and_set_by_the_report_command(monkeypatch, tmp_path):
    from click.testing import CliRunner

    import workbench.pipeline
    from workbench.cli import main
    from workbench.metrics import MetricConfig

    assert "|ic_model=google-bert/bert-base-uncased|" in MetricConfig().describe()
    seen = {}
    monkeypatch.setattr(workbench.pipeline, "report_runs", lambda store, ids, out, **kw: seen.update(kw) or [])
    monkeypatch.setattr("workbench.cli.report.open_existing_store", lambda path: None)
    result = CliRunner().invoke(main, ["report", "abc", "--out", str(tmp_path), "--ic-model", "/models/bert"])
    assert result.exit_code == 0, result.output
    assert seen["config"].ic_model == "/models/bert" and "|ic_model=/models/bert|" in seen["config"].describe()
