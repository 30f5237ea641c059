"""The Ollama client's settings live once (OllamaSettings) and are nested as `client` in every config
that talks to Ollama; the command line keeps setting them by their plain (and older) names, and run
signatures and attack keys keep the flat dicts they had (tests/project/test_pinned_ids.py pins the hashes)."""

from __future__ import annotations

import pytest

from workbench.generator_contract.registry import create_generator
from workbench.llm.config import OllamaSettings
from workbench.privacy.inference_attacks.inference_attackers import make_inference_attacker


def test_every_ollama_config_holds_the_one_record_with_its_own_defaults():
    ollama, intact = create_generator("ollama"), create_generator("intact")
    attacker = make_inference_attacker("ollama", 5)
    clients = [ollama.config.client, intact.config.client, attacker.config.client]
    assert all(type(c) is OllamaSettings for c in clients)
    assert [c.temperature for c in clients] == [0.8, 0.3, 0.3]
    assert [c.tokens_per_answer for c in clients] == [32, 64, 32]


@pytest.mark.parametrize("spelling", ["tokens_per_answer", "client.tokens_per_answer", "tokens-per-mask"])
def test_the_answer_budget_is_set_by_any_of_its_spellings_and_signed_by_its_old_name(spelling):
    generator = create_generator("ollama", {spelling: "40", "temperature": "0.1"})
    assert generator.config.client.tokens_per_answer == 40 and generator.config.client.temperature == 0.1
    signature = generator.signature_config()
    assert signature["tokens_per_mask"] == 40 and "client" not in signature and "tokens_per_answer" not in signature


def test_the_attack_key_names_the_budget_tokens_per_guess():
    described = make_inference_attacker("ollama", 3, {"tokens_per_guess": "50"}).describe()
    assert described["tokens_per_guess"] == 50
    assert not {"client", "tokens_per_answer", "host", "parallel"} & set(described)


def test_intacts_llm_attacker_asks_through_intacts_client():
    intact = create_generator("intact", {"model": "m:1", "temperature": "0.6", "parallel": "3"})
    attacker = make_inference_attacker("ollama", 5, intact.config.attacker_options(run_seed=7))
    assert (attacker.config.client.model, attacker.config.client.temperature) == ("m:1", 0.6)
    assert attacker.config.client.seed == 7  # the run's seed, as INTACT's own seed is -1
    assert attacker.config.client.tokens_per_answer == 64 and attacker.config.client.parallel == 1
    assert make_inference_attacker("ollama", 5, create_generator(
        "intact", {"attacker_model": "m:2"}).config.attacker_options(0)).config.client.model == "m:2"
