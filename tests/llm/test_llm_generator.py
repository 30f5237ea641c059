"""The generator inside the engine, with the client replaced by a scripted one (no server):
one request per window in maskL, one per slot in repL with earlier picks in the prompt,
requests and seconds attributed per span, FAILED and copied-from-context notes."""

from __future__ import annotations

import re

import pytest

from workbench.adapters.ollama import OllamaGenerator
from workbench.generation.engine import run_generation
from workbench.generator_contract import FAILED, GenerationOptions
from workbench.llm.client import Outcome
from workbench.llm.config import OllamaConfig
from workbench.upos import get_tagger

MASK = re.compile(r"\[(MASK(?:\.[A-Z]+)?\.\d+)\]")


class ScriptedClient:
    """Answers every mask with a fresh made-up name, except what a test scripts."""

    def __init__(self, answer=None):
        self.prompts = []
        self.answer = answer

    def ask(self, prompt, key, seed):
        self.prompts.append(prompt)
        if self.answer is not None:
            return self.answer(prompt, len(self.prompts))
        return Outcome({name: f"Zed{len(self.prompts)}x{n}" for n, name in enumerate(prompt.names, 1)}, "", 1, 0.5)


def generator(mode, client, upos=False):
    gen = OllamaGenerator(OllamaConfig(), GenerationOptions(mode=mode, upos_filter=upos))
    gen._client = client  # load() would contact a server
    gen.load = lambda: None
    return gen


def run(store, corpus, gen, batch_size=32):
    return run_generation(store, corpus, gen, get_tagger("spacy", quiet=True), batch_size=batch_size, progress=False)


@pytest.mark.parametrize("batch_size", [32, 3])  # 3: windows cut in two by the engine's batches
def test_maskl_asks_once_per_window_and_splits_the_cost(tiny_corpus, store, batch_size):
    client = ScriptedClient()
    record = run(store, tiny_corpus, generator("maskL", client), batch_size)
    preds = store.predictions(record.run_id)
    windows = {tuple(MASK.findall(p.user)) + (p.user,) for p in client.prompts}
    assert len(client.prompts) == len(windows) < tiny_corpus.n_slots  # one request per distinct window
    assert sum(p.requests for p in preds) == len(client.prompts)       # every request attributed once
    assert sum(p.seconds for p in preds) == pytest.approx(0.5 * len(client.prompts), abs=1e-3)
    assert not any(p.failed for p in preds)


def test_repl_asks_per_slot_with_earlier_picks_in_the_left_context(tiny_corpus, store):
    client = ScriptedClient()
    record = run(store, tiny_corpus, generator("repL", client))
    preds = {(p.doc_id, p.span_index): p for p in store.predictions(record.run_id)}
    assert len(client.prompts) == tiny_corpus.n_slots == sum(p.requests for p in preds.values())
    doc = tiny_corpus.document("en-1")
    # The last span's window holds earlier spans of its document, now filled with this run's picks.
    last = [p for p in client.prompts if "He is a [MASK." in p.user][-1]
    assert preds[("en-1", 8)].pseudonym in last.user and preds[("en-1", 7)].pseudonym in last.user
    assert len(last.names) == 1 and doc.spans[9].text not in last.user


def test_upos_tags_reach_the_masks_when_the_filter_is_on(tiny_corpus, store):
    client = ScriptedClient()
    run(store, tiny_corpus, generator("maskL", client, upos=True))
    names = [n for p in client.prompts for n in p.names]
    assert names and all(re.fullmatch(r"MASK\.[A-Z]+\.\d+", n) for n in names)


def test_failed_windows_and_missing_keys_are_failed_spans(tiny_corpus, store):
    def answer(prompt, n):
        if n == 1:
            return Outcome(None, "no valid JSON after 3 requests: invalid JSON", 3, 1.0)
        return Outcome({name: "Zed" for name in prompt.names[1:]}, "", 1, 0.5)  # the first mask's key missing

    record = run(store, tiny_corpus, generator("maskL", ScriptedClient(answer)))
    preds = store.predictions(record.run_id)
    assert record.status == "complete" and len(preds) == tiny_corpus.n_slots
    notes = {p.note for p in preds if p.failed}
    assert "no valid JSON after 3 requests: invalid JSON" in notes and "answer lacks MASK.1" in notes
    assert all(p.pseudonym == FAILED for p in preds if p.failed)


def test_a_pseudonym_copied_from_the_context_is_kept_and_noted(tiny_corpus, store):
    # "teacher" and "born" are words of the context in en-1; "Zed" is not.
    def answer(prompt, n):
        return Outcome({name: ("born" if i == 0 else "Zed") for i, name in enumerate(prompt.names)}, "", 1, 0.1)

    record = run(store, tiny_corpus, generator("maskL", ScriptedClient(answer)))
    preds = store.predictions(record.run_id)
    copied = [p for p in preds if p.note == "copied-from-context"]
    assert copied and all(p.pseudonym == "born" and not p.failed for p in copied)
    assert all(p.note == "" for p in preds if p.pseudonym == "Zed")
