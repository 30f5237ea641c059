"""`-g intact` end to end against the Ollama stand-in (tests/ollama_standin: SmolLM2-135M-Instruct behind
Ollama's HTTP API on a free 127.0.0.1 port): candidates and attacks through the real client, 004's
matching function over the real English lemmatiser, a complete run stored by generate_run.

A 135M model proposes poor generalisations and guesses badly; this test checks that what happened
is done and recorded as specified (requests, prompts, schema, notes), not that the choices are good.
Kept to four spans: every request is a real model answer on two shared cores."""

from __future__ import annotations

import pytest

from tests.helpers.corpus import document_with_mentions
from workbench.data_model import Corpus
from workbench.pipeline import generate_run

pytestmark = pytest.mark.slow
MODEL = "smollm2:135m-instruct"  # the name the stand-in serves (fixtures: tests/conftest.py)
TEXT = "Mr Jan Kowalski was born in Warsaw in 1950. He worked for the Polish Academy of Sciences until 1990."
MENTIONS = [("Jan Kowalski", "PERSON"), ("Warsaw", "LOC"), ("1950", "DATETIME"),
            ("Polish Academy of Sciences", "ORG")]


def corpus() -> Corpus:
    return Corpus("intact-standin", "tests/intact", (document_with_mentions("intact", "d1", TEXT, MENTIONS),))


def test_a_complete_intact_run_through_the_standin(healthy, store):
    from workbench.privacy.inference_attacks.lemmatiser_build import build_lemmatiser
    from workbench.upos import get_tagger
    build_lemmatiser("en")  # built once by .ci/steps/12-lemmatiser.sh; here only if that has not run
    before = healthy.chat_requests()
    result = generate_run(corpus(), "intact", {"model": MODEL, "host": healthy.url, "backoff": 0},
                          {"mode": "repL", "window": 50}, store=store, tagger=get_tagger("spacy", quiet=True),
                          progress=False)
    sent = healthy.chat_requests() - before
    preds = {p.span_index: p for p in store.predictions(result.run_id)}
    for p in preds.values():  # shown with -s
        print(f"\n{MENTIONS[p.span_index][0]!r} -> {p.pseudonym!r} ({p.note}; {p.requests} requests; "
              f"candidates {list(p.candidates)})", end="")
    assert result.run.status == "complete" and len(preds) == 4
    assert "gen=intact" in str(result.run.signature) and "sees=original" in str(result.run.signature)

    # Every request the server saw is counted once, on the span it was for.
    assert sum(p.requests for p in preds.values()) == sent
    assert preds[0].pseudonym == "PERSON" and preds[0].requests == 0  # a direct identifier: no request
    assert preds[2].note.startswith("intact: rule") or preds[2].failed  # a year: the rule chain, the decade
    assert 1 <= preds[2].requests <= 3  # one attack (retried at most twice), no candidate request
    for p in preds.values():
        assert p.failed or p.note.startswith("intact: ")
        if not p.failed and "kept" not in p.note:
            assert p.pseudonym == MENTIONS[p.span_index][1]  # no candidate survived: the label
        assert p.pseudonym.lower() not in ("warsaw", "1950", "polish academy of sciences")

    requests = healthy.recent()[-sent:]
    candidate_asks = [r for r in requests if "replacement_1" in r["format"]["required"]]
    attacks = [r for r in requests if "guess_1" in r["format"]["required"]]
    assert len(candidate_asks) + len(attacks) == sent and candidate_asks and attacks
    assert all(r["format"]["required"] == [f"replacement_{i}" for i in range(1, 6)] for r in candidate_asks)
    assert any("Original: He worked for the [[Polish Academy of Sciences]]" in r["messages"][-1]["content"]
               for r in candidate_asks)
    # The attacks read the sanitised text: the direct identifier labelled, never an original of another span.
    for r in attacks:
        text = r["messages"][-1]["content"]
        assert "Mr PERSON was born in" in text and "Kowalski" not in text and "[[" in text
