"""The LLM inference attacker through the Ollama stand-in (tests/ollama_standin: a real small model
behind Ollama's HTTP API on a free 127.0.0.1 port): 004's prompt with the span in [[…]], a JSON
schema of N guesses, one request per span, answers stored and matched, a failed answer asked again.
The matching function reads tiny lemmatisers (tiny_lemmatiser_cache, tests/privacy/conftest.py): no test
here asserts a lemma."""

from __future__ import annotations

import pytest

from tests.privacy.inference_helpers import reference_runs

MODEL = "smollm2:135m-instruct"  # the name the stand-in serves (fixtures: tests/conftest.py)


def make_label_run(store):
    """The label reference run of one short English document with two spans."""
    from tests.helpers.corpus import document_with_mentions
    from workbench.data_model import Corpus
    text = "Mr Jan Kowalski was born in Warsaw and works as a judge."
    mentions = [("Jan Kowalski", "PERSON"), ("Warsaw", "LOC")]
    corpus = Corpus("llm-tiny", "tests", (document_with_mentions("llm-tiny", "d1", text, mentions),))
    return reference_runs(store, corpus, kinds=("label",))["label"]


@pytest.fixture
def label_run(store, tiny_lemmatiser_cache):
    return make_label_run(store)


def options(url, **more):
    return {"model": MODEL, "host": url, "backoff": "0", **more}


def test_the_llm_attacker_asks_004s_question_and_stores_the_guesses(store, healthy, label_run):
    from workbench.privacy.inference_attacks.inference import inference_disclosure, inference_spans
    healthy.fault("canned", times=-1)  # quick, known answers: this test is about the exchange
    before = healthy.chat_requests()
    frame = inference_disclosure(store, [label_run], attacker="ollama", n=3, config=options(healthy.url))
    sent = healthy.recent()[-2:]
    assert healthy.chat_requests() - before == 2  # one request per span
    assert frame["spans"].item() == 2 and frame["attack_key"].item().startswith("ollama-smollm2_135m-instruct-n3-")
    prompts = [r["messages"][-1]["content"] for r in sent]
    assert "Text: Mr [[PERSON]] was born in LOC and works as a judge." in prompts[0]
    assert "Text: Mr PERSON was born in [[LOC]] and works" in prompts[1] and "Guesses for \"LOC\"" in prompts[1]
    assert all(r["format"]["required"] == ["guess_1", "guess_2", "guess_3"] for r in sent)
    assert all("exact date" in r["messages"][0]["content"] for r in sent)  # 004 Table 4's instruction
    spans = inference_spans(store, [label_run])
    assert spans["guesses"].tolist() == [["Canned 1", "Canned 2", "Canned 3"]] * 2
    assert not spans["disclosed"].any() and (spans["note"] == "").all()


def test_a_span_without_an_answer_is_stored_with_its_reason_and_asked_again(store, healthy, label_run):
    from workbench.privacy.inference_attacks.inference import inference_disclosure, inference_spans
    healthy.fault("invalid-json", times=2)  # both attempts for the first span
    frame = inference_disclosure(store, [label_run], attacker="ollama", n=3,
                                 config=options(healthy.url, attempts="2"))
    spans = inference_spans(store, [label_run])
    first = spans[spans["span_index"] == 0].iloc[0]
    assert first["note"].startswith("no valid JSON") and first["guesses"] == []
    assert frame["failed"].item() == 1 and frame["spans"].item() == 1
    healthy.fault("canned", times=-1)
    before = healthy.chat_requests()
    frame = inference_disclosure(store, [label_run], attacker="ollama", n=3, config=options(healthy.url))
    assert healthy.chat_requests() - before == 1  # only the span that had no answer
    assert frame["failed"].item() == 0 and frame["spans"].item() == 2


def test_the_real_model_answers_with_guesses(store, healthy, label_run):
    """The stand-in's real model (SmolLM2-135M, far weaker than the users' Qwen) fills the schema
    (about 12 s here for two spans, so not marked slow)."""
    from workbench.privacy.inference_attacks.inference import inference_disclosure, inference_spans
    inference_disclosure(store, [label_run], attacker="ollama", n=3, config=options(healthy.url))
    spans = inference_spans(store, [label_run])
    assert len(spans) == 2
    for row in spans.itertuples():
        assert row.note or 1 <= len(row.guesses) <= 3
        assert all(isinstance(g, str) and g.strip() for g in row.guesses)
        assert row.requests >= 1


def test_parallel_guesses_are_those_of_one_at_a_time(healthy, tmp_path, tiny_lemmatiser_cache):
    """-o parallel=2: the batch's two spans are asked at once (the stand-in answers two at once) and
    the stored guesses are those of parallel=1 (temperature 0); the attack key is the same."""
    from workbench.privacy.inference_attacks.inference import inference_disclosure, inference_spans
    from workbench.store import RunStore
    got, peaks = {}, {}
    for parallel in ("1", "2"):
        store = RunStore(tmp_path / f"p{parallel}.sqlite")  # the same attack key: one store would reuse
        run = make_label_run(store)
        healthy.reset_peak()
        frame = inference_disclosure(store, [run], attacker="ollama", n=3,
                                     config=options(healthy.url, temperature="0", parallel=parallel))
        peaks[parallel] = healthy.peak()
        spans = inference_spans(store, [run])
        got[parallel] = (frame["attack_key"].item(), spans["guesses"].tolist(), spans["note"].tolist(),
                         spans["requests"].tolist())
    assert got["2"] == got["1"] and len(got["1"][1]) == 2
    assert peaks == {"1": 1, "2": 2}
