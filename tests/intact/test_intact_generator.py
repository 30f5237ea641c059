"""`-g intact` inside the engine (workbench.pipeline.generate_run) with a scripted LLM and attacker:
what is stored, what the attacker reads (the run's earlier decisions), the original level, FAILED
and --retry-failed after an outage, and a killed run resumed with identical output."""

from __future__ import annotations

import pytest
from intact_helpers import ScriptedAttacker, ScriptedClient, simple_matcher

from tests.helpers.corpus import document_with_mentions
from workbench.data_model import Corpus
from workbench.generator_contract import GenerationOptions
from workbench.infra.errors import WorkbenchError
from workbench.pipeline import generate_run
from workbench.privacy.inference_attacks.inference_contract import Guesses

TEXT = ("Anna Berg was born in Oslo on 3 August 1975. She moved to Paris in 1999 and works for Nordbank. "
        "Her brother Olle lives in Bergen.")
MENTIONS = [("Anna Berg", "PERSON"), ("Oslo", "LOC"), ("3 August 1975", "DATETIME"), ("Paris", "LOC"),
            ("1999", "DATETIME"), ("Nordbank", "ORG"), ("Olle", "PERSON"), ("Bergen", "LOC")]
CANDIDATES = {"Oslo": ["the Norwegian capital", "a Nordic capital", "a city"],
              "Paris": ["the French capital", "a European capital", "a city"],
              "Nordbank": ["a Nordic bank", "a bank", "a company"],
              "Bergen": ["a Norwegian port", "a port city", "a city"]}
# Each disclosing script names guesses that 004's matching function matches with the original.
DISCLOSING = {"the Norwegian capital": ["Oslo"], "the French capital": ["Paris", "Lyon"], "a bank": ["Nordbank"],
              "a company": ["the Nordbank group"],
              "a Norwegian port": ["Bergen"]}


def corpus() -> Corpus:
    return Corpus("intact-tiny", "tests/intact", (document_with_mentions("intact", "d1", TEXT, MENTIONS),))


def intact(attacker=None, client=None, **options):
    from workbench.adapters.intact.generator import Intact
    return Intact(None, GenerationOptions(**{"mode": "repL", "window": 50, **options}),
                  attacker=attacker or ScriptedAttacker(DISCLOSING), client=client or ScriptedClient(CANDIDATES),
                  matcher_for=lambda lang: simple_matcher())


@pytest.fixture(scope="module")
def tagger():
    from workbench.upos import get_tagger
    return get_tagger("spacy", quiet=True)


def picks(store, run_id):
    return {p.span_index: (p.pseudonym, p.note, p.requests) for p in store.predictions(run_id)}


def test_a_run_is_stored_with_every_decision_and_its_requests(store, tagger):
    gen = intact()
    result = generate_run(corpus(), gen, store=store, tagger=tagger, progress=False)
    assert result.run.status == "complete" and result.failed == 0
    assert "sees=original" in str(result.run.signature)
    got = picks(store, result.run_id)
    assert got[0] == ("PERSON", "intact: label (direct identifier)", 0)
    assert got[6][0] == "PERSON"
    assert got[1] == ("a Nordic capital", "intact: llm candidate 2 kept (1 disclosed)", 1 + 2)
    assert got[2][0] == "August 1975" and got[2][2] == 1  # the rule's first step, one attack, no LLM request
    assert got[5] == ("ORG", "intact: label (3 of 3 llm candidates disclosed)", 1 + 2)  # "a Nordic bank" by itself
    # Every request is counted once: candidate requests plus attacks.
    assert sum(r for _, _, r in got.values()) == len(gen._client.prompts) + len(gen._attacker.targets)


def test_the_attacker_reads_the_runs_earlier_decisions(store, tagger):
    gen = intact()
    generate_run(corpus(), gen, store=store, tagger=tagger, progress=False)
    paris = next(t for t in gen._attacker.targets if t.replacement == "a European capital")
    assert paris.text.startswith("PERSON was born in a Nordic capital on August 1975. She moved to a European capital")
    assert paris.text.endswith("Her brother PERSON lives in LOC.")  # not yet decided: the label
    assert all(m not in t.text for t in gen._attacker.targets for m in ("Anna", "Oslo", "Nordbank", "Bergen"))


def test_maskL_is_refused_before_anything_is_stored(store, tagger):
    with pytest.raises(WorkbenchError, match="--mode repL"):
        generate_run(corpus(), intact(mode="maskL"), store=store, tagger=tagger, progress=False)
    assert store.runs() == []


def test_an_outage_fails_spans_as_unreachable_and_retry_failed_redoes_them(store, tagger):
    down = Guesses((), "unreachable: connection refused (after 3 requests)", 3)
    attacker = ScriptedAttacker({**DISCLOSING, "a European capital": down})
    first = generate_run(corpus(), intact(attacker=attacker), store=store, tagger=tagger, progress=False)
    assert (first.failed, first.unreachable) == (1, 1)
    failed = [p for p in store.predictions(first.run_id) if p.failed]
    assert failed[0].span_index == 3 and failed[0].pseudonym == "[FAILED]" and failed[0].requests == 1 + 1 + 3
    again = generate_run(corpus(), intact(), store=store, tagger=tagger, progress=False, retry_failed=True)
    assert again.run_id == first.run_id and again.failed == 0
    assert picks(store, again.run_id)[3][0] == "a European capital"


def test_a_killed_run_resumes_with_identical_output_and_attacks(tmp_path, tagger):
    from workbench.store import RunStore
    whole = intact()
    clean = RunStore(tmp_path / "clean.sqlite")
    run = generate_run(corpus(), whole, store=clean, tagger=tagger, progress=False, batch_size=1)

    class Killed(Exception):
        pass

    def kill_after(n_done):
        if n_done == 4:
            raise Killed

    store = RunStore(tmp_path / "killed.sqlite")
    before, after = intact(), intact()  # two processes: nothing carried over in memory
    with pytest.raises(Killed):
        generate_run(corpus(), before, store=store, tagger=tagger, progress=False, batch_size=1,
                     after_batch=kill_after)
    resumed = generate_run(corpus(), after, store=store, tagger=tagger, progress=False, batch_size=1)
    assert resumed.run_id == run.run_id
    assert picks(store, resumed.run_id) == picks(clean, run.run_id)
    # The resumed process attacked exactly what the uninterrupted one did for the last spans, in the
    # same sanitised text: the earlier decisions came back from the store.
    seen = [(t.key, t.text) for t in before._attacker.targets + after._attacker.targets]
    assert seen == [(t.key, t.text) for t in whole._attacker.targets]


def test_intact_is_handed_its_spans_original_and_nothing_of_any_other(store, tagger):
    from workbench.adapters.intact.generator import Intact
    seen = []

    class Spy(Intact):
        def generate(self, slots):
            seen.extend(slots)
            return super().generate(slots)

    gen = Spy(None, GenerationOptions(mode="repL", window=50), attacker=ScriptedAttacker(DISCLOSING),
              client=ScriptedClient(CANDIDATES), matcher_for=lambda lang: simple_matcher())
    assert gen.sees_summary() == "original"
    generate_run(corpus(), gen, store=store, tagger=tagger, progress=False)
    doc = corpus().documents[0]
    assert [s.span_index for s in seen] == list(range(len(MENTIONS)))
    for slot in seen:
        assert slot.sees == "original" and slot.original == doc.spans[slot.span_index].text
        others = [s.text for i, s in enumerate(doc.spans) if i != slot.span_index]
        assert not any(o in slot.render("<mask>") for o in others)


REPEATED = "Anna Berg was born in Oslo. She left Oslo for Paris in 1999. Today Oslo is far away."
REPEATED_MENTIONS = [("Anna Berg", "PERSON"), ("Oslo", "LOC"), ("Oslo", "LOC"), ("Paris", "LOC"),
                     ("1999", "DATETIME"), ("Oslo", "LOC")]


def repeated_corpus() -> Corpus:
    return Corpus("intact-repeated", "tests/intact",
                  (document_with_mentions("intact", "d1", REPEATED, REPEATED_MENTIONS),))


@pytest.mark.parametrize("asked,runs_as", [("off", "document"), ("document", "document"), ("corpus", "corpus")])
def test_an_entity_is_decided_once_and_its_later_mentions_reuse_the_decision(store, tagger, asked, runs_as):
    gen = intact(consistent=asked)
    result = generate_run(repeated_corpus(), gen, store=store, tagger=tagger, progress=False)
    assert f"consistent={runs_as}" in str(result.run.signature)
    got = picks(store, result.run_id)
    assert got[1][0] == "a Nordic capital"  # the first "Oslo": decided by the attack
    for later in (2, 5):  # the later "Oslo"s: the same decision, no request, no call to intact
        assert got[later] == ("a Nordic capital", "reused:d1#1", 0)
    assert sum("[[Oslo]]" in prompt.user for prompt, _, _ in gen._client.prompts) == 1
    # Once decided, a mention stands in the attacked text of later spans as its entity's decision.
    paris = next(t for t in gen._attacker.targets if t.replacement == "a European capital")
    assert "She left a Nordic capital for a European capital in DATETIME" in paris.text
