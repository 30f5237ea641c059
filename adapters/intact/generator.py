"""INTACT (004 §3): LLM generalisations, each checked by an inference attack; the first not disclosed is kept.

The work per span is workbench.adapters.intact.decide: a direct identifier gets its label with no request;
a date the rules read gets day → month and year → year → decade; any other span gets candidates
from the LLM, most specific first; each candidate is attacked in the current sanitised window and
004's matching function decides; the first candidate not disclosed is kept, else the label.

Why repL only: 004 decides spans in document order, each against the document as sanitised so
far. The engine's repL is exactly that order, and it hands each slot the run's earlier picks in
its window (read back from the store on a resume), so this generator keeps no state between
calls: a killed run resumed gives the same output. Under maskL no slot would show any earlier
decision. The attack reads the slot's window: `--window` sets how much of the document that is
(004 attacks the whole document; `--window 100` is the whole of every shipped document, cut to
`context_chars` around the span by the LLM attacker).

Consistent per entity by construction: `--consistent off` (the default) runs as `document`, so
the engine sends only an entity's first mention here and later mentions reuse its decision
(workbench.generation.consistency); `corpus` is kept.

It reads the span's original text (it generalises and attacks it): sees = "original".

`parallel=N` decides N spans of one generate() call at once (workbench.llm.in_flight): the
engine's repL batch holds the k-th slot of many documents, and a decision depends only on its
slot, so the decisions are independent; each stays sequential inside (candidates, then one
attack after another). The clients are safe to share between threads; the matching functions
(spaCy and a cache) and an attacker not marked `concurrent` are called one thread at a time.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Sequence
from typing import TypeVar, cast

from workbench.adapters.intact.config import IntactConfig
from workbench.adapters.intact.decide import Decision, Settings, SpanToSanitise, Tools, decide
from workbench.generator_contract.base import Generator, Prediction
from workbench.infra.errors import WorkbenchError
from workbench.llm.in_flight import in_flight
from workbench.privacy.inference_attacks.inference_contract import InferenceAttacker
from workbench.privacy.inference_attacks.matching import Matcher
from workbench.text.slots import Slot


class Intact(Generator):
    name = "intact"
    needs_ollama = True  # its generalisations come from an LLM
    stochastic = True  # sampled with the run's seed (draws_with_seed)
    Config = IntactConfig
    config: IntactConfig
    sees = "original"

    def __init__(self, config: IntactConfig | None = None, options=None, *, attacker: InferenceAttacker | None = None,
                 client=None, matcher_for: Callable[[str], Matcher] | None = None) -> None:
        """attacker, client, matcher_for: ready-made parts instead of those the config names (tests
        script them); left out, load() builds them."""
        super().__init__(config, options)
        if self.options.consistent == "off":
            # Consistent per entity by construction (004 §3.1: only an entity's first mention is
            # decided, later ones reuse it): the engine's consistency does it, so that it is
            # rebuilt from the store on a resume. The signature records consistent=document.
            self.options = dataclasses.replace(self.options, consistent="document")
        self._attacker = attacker
        self._client = client
        self._matcher_for = matcher_for
        self._matchers: dict[str, Matcher] = {}
        self._matchers_lock = threading.Lock()

    @property
    def seed(self) -> int:
        return self.config.client.seed if self.config.client.seed >= 0 else self.options.seed

    def draws_with_seed(self) -> bool:
        # The run's seed is the model's sampling seed unless the client fixes its own; at
        # temperature 0 the model decodes greedily and no seed changes the answer.
        return self.config.client.seed < 0 and self.config.client.temperature > 0

    def model_id(self) -> str:
        return self.config.client.model

    def signature_config(self) -> dict:
        return self.config.signature()  # flat, as before the client's settings were nested

    def hashed_config(self, stored: dict) -> dict:
        from workbench.llm.config import without_server
        return without_server(stored)  # a run stored before issue 37 hashed its address

    def server(self) -> str | None:
        return self.config.client.host

    def load(self) -> None:
        self.load_for(())

    def load_for(self, langs: Sequence[str]) -> None:
        # Checked here, not at construction: listing generators builds each with default options.
        if self.options.mode != "repL":
            raise WorkbenchError("intact decides the spans of a document in order, each against the earlier "
                                 "decisions (004 §3.3): run it with --mode repL")
        if self._client is None:
            from workbench.llm.client import OllamaClient
            from workbench.llm.guard import check_host
            client = self.config.client
            url = check_host(client.host, client.allow_remote)  # again: a config can be built by hand
            self._client = OllamaClient(client, url)
            self._client.check_model()
        if self._attacker is None:
            from workbench.privacy.inference_attacks.inference_attackers import make_inference_attacker
            self._attacker = make_inference_attacker(self.config.attacker, self.config.guesses,
                                                     self.config.attacker_options(self.seed))
        self._attacker.load(list(langs))
        for lang in langs:  # the lemmatisers load now, so a missing one stops the run before it starts
            self._matcher(lang)

    def generate(self, slots: Sequence[Slot]) -> list[Prediction]:
        if self._client is None or self._attacker is None or self.options.mode != "repL":
            self.load_for(sorted({s.lang for s in slots}))
        loaded = self._attacker
        if loaded is None:
            raise RuntimeError(f"{type(self).__name__}.load_for() left no attacker")
        attacker = loaded if getattr(loaded, "concurrent", False) else OneAtATime.around(loaded)
        tools = Tools(self._client, attacker, self._matcher,
                      Settings(self.seed, self.config.candidates, self.config.client.max_chars))
        return in_flight(lambda slot: _prediction(decide(_span(slot), tools)), slots, self.config.client.parallel)

    def _matcher(self, lang: str) -> Matcher:
        """The language's matching function, behind OneAtATime (it is shared by the decisions in flight)."""
        with self._matchers_lock:
            if lang not in self._matchers:
                if self._matcher_for is not None:
                    made = self._matcher_for(lang)
                else:
                    made = _default_matcher(lang, self.config.frequent_from)
                self._matchers[lang] = OneAtATime.around(made)
            return self._matchers[lang]


T = TypeVar("T")


class OneAtATime:
    """An object whose methods are called one thread at a time: spaCy's lemmatiser and the
    Matcher's phrase cache, or a model-backed attacker, are not made for concurrent calls."""

    def __init__(self, inner: object) -> None:
        self._inner = inner
        self._lock = threading.Lock()

    @staticmethod
    def around(inner: T) -> T:
        """`inner` behind the lock, typed as what it stands in for: every method is forwarded."""
        return cast(T, OneAtATime(inner))

    def __getattr__(self, name: str):
        value = getattr(self._inner, name)
        if not callable(value):
            return value

        def locked(*args, **kwargs):
            with self._lock:
                return value(*args, **kwargs)
        return locked


def _span(slot: Slot) -> SpanToSanitise:
    if slot.original is None:
        raise RuntimeError(f"slot {slot.doc_id}#{slot.span_index} came without its original text; intact "
                           "declares sees='original' and the engine must hand it over")
    return SpanToSanitise(slot.doc_id, slot.span_index, slot.lang, slot.label, slot.original, slot.identifier_type,
                          slot.pieces)


def _prediction(decision: Decision) -> Prediction:
    if decision.failed:
        return Prediction((), failed=True, note=decision.note, seconds=decision.seconds, requests=decision.requests)
    return Prediction((decision.replacement,), note=decision.note, seconds=decision.seconds,
                      requests=decision.requests)


def _default_matcher(lang: str, frequent_from: str) -> Matcher:
    """004's matching function over the language's lemmatiser (workbench.privacy.inference_attacks.lemmatiser)."""
    from workbench.privacy.inference_attacks.lemmatiser_build import lemmatiser
    frequent: frozenset[str] = frozenset()
    if frequent_from:
        from workbench.loaders import load_corpus
        from workbench.privacy.inference_attacks.inference import frequent_lemmas
        frequent = frequent_lemmas(load_corpus(frequent_from), lang)
    return Matcher(lemmatiser(lang), frequent)
