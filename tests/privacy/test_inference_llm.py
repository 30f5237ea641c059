"""The LLM inference attacker through the Ollama stand-in (tests/ollama_standin: a real small model
behind Ollama's HTTP API on a free 127.0.0.1 port): 004's prompt with the span in [[…]], a JSON
schema of N guesses, one request per span, answers stored and matched, a failed answer asked again."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from inference_helpers import built_lemmatiser, reference_runs

MODEL = "smollm2:135m-instruct"  # the name the stand-in serves


def _launch():
    name = "ollama_standin_launch"  # the module name tests/llm/conftest.py gives it, so both share one
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            name, Path(__file__).resolve().parents[1] / "ollama_standin" / "launch.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture(scope="module")
def standin():
    launch = _launch()
    missing = launch.missing_requirements()
    if missing:
        pytest.skip(f"the Ollama stand-in needs {', '.join(missing)}: run .ci/steps/20-llm-standin.sh")
    server = launch.start()
    yield server
    server.stop()


@pytest.fixture
def label_run(store):
    """The label reference run of one short English document with two spans."""
    from workbench.loaders.validate import RawSpan, build_document
    from workbench.model import Corpus
    built_lemmatiser("en")
    text = "Mr Jan Kowalski was born in Warsaw and works as a judge."
    spans = [RawSpan(text.index(m), text.index(m) + len(m), label) for m, label in (("Jan Kowalski", "PERSON"),
                                                                                   ("Warsaw", "LOC"))]
    corpus = Corpus("llm-tiny", "tests", (build_document("llm-tiny", "d1", text, "en", spans),))
    return reference_runs(store, corpus, kinds=("label",))["label"]


def options(url, **more):
    return {"model": MODEL, "host": url, "backoff": "0", **more}


def test_the_llm_attacker_asks_004s_question_and_stores_the_guesses(store, standin, label_run):
    from workbench.privacy.inference import inference_disclosure, inference_spans
    standin.fault("canned", times=-1)  # quick, known answers: this test is about the exchange
    try:
        before = standin.chat_requests()
        frame = inference_disclosure(store, [label_run], attacker="ollama", n=3, config=options(standin.url))
        sent = standin.recent()[-2:]
        assert standin.chat_requests() - before == 2  # one request per span
    finally:
        standin.fault("none")
    assert frame["spans"].item() == 2 and frame["attack_key"].item().startswith("ollama-smollm2_135m-instruct-n3-")
    prompts = [r["messages"][-1]["content"] for r in sent]
    assert "Text: Mr [[PERSON]] was born in LOC and works as a judge." in prompts[0]
    assert "Text: Mr PERSON was born in [[LOC]] and works" in prompts[1] and "Guesses for \"LOC\"" in prompts[1]
    assert all(r["format"]["required"] == ["guess_1", "guess_2", "guess_3"] for r in sent)
    assert all("exact date" in r["messages"][0]["content"] for r in sent)  # 004 Table 4's instruction
    spans = inference_spans(store, [label_run])
    assert spans["guesses"].tolist() == [["Canned 1", "Canned 2", "Canned 3"]] * 2
    assert not spans["disclosed"].any() and (spans["note"] == "").all()


def test_a_span_without_an_answer_is_stored_with_its_reason_and_asked_again(store, standin, label_run):
    from workbench.privacy.inference import inference_disclosure, inference_spans
    standin.fault("invalid-json", times=2)  # both attempts for the first span
    try:
        frame = inference_disclosure(store, [label_run], attacker="ollama", n=3,
                                     config=options(standin.url, attempts="2"))
    finally:
        standin.fault("none")
    spans = inference_spans(store, [label_run])
    first = spans[spans["span_index"] == 0].iloc[0]
    assert first["note"].startswith("no valid JSON") and first["guesses"] == []
    assert frame["failed"].item() == 1 and frame["spans"].item() == 1
    standin.fault("canned", times=-1)
    try:
        before = standin.chat_requests()
        frame = inference_disclosure(store, [label_run], attacker="ollama", n=3, config=options(standin.url))
        assert standin.chat_requests() - before == 1  # only the span that had no answer
    finally:
        standin.fault("none")
    assert frame["failed"].item() == 0 and frame["spans"].item() == 2


def test_the_real_model_answers_with_guesses(store, standin, label_run):
    """The stand-in's real model (SmolLM2-135M, far weaker than the users' Qwen) fills the schema
    (about 12 s here for two spans, so not marked slow)."""
    from workbench.privacy.inference import inference_disclosure, inference_spans
    standin.fault("none")
    inference_disclosure(store, [label_run], attacker="ollama", n=3, config=options(standin.url))
    spans = inference_spans(store, [label_run])
    assert len(spans) == 2
    for row in spans.itertuples():
        assert row.note or 1 <= len(row.guesses) <= 3
        assert all(isinstance(g, str) and g.strip() for g in row.guesses)
        assert row.requests >= 1
