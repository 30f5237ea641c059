"""The Ollama generator (003 §3.2, §4): a small instruction LLM fills numbered masks, answering JSON.

maskL: the slots of one window (same document, same pieces) share one request;
its answer fills each of their masks, and the request's time and count are split between
them. A window cut in two by the engine's batching is not asked twice: answers of recent
windows are kept. repL: the engine builds every slot with this run's earlier picks in
its left context, and each slot is a request of its own (003 Appendix B).

A window with no usable answer gives FAILED predictions whose note says why; the engine
stores them as `[FAILED]` and the run goes on. The FAILED rate is read from the store
(workbench.llm.stats).

`parallel=N`: the requests of one generate() call are independent (maskL: its windows, across
documents; repL: the k-th slots of many documents, which the engine sends as one batch), so N
of them are kept in flight (workbench.llm.in_flight). Each carries its own seed and the
answers are used in slot order, and only this thread touches the counts and the kept answers,
so the output is that of parallel=1.
"""

from __future__ import annotations

import hashlib
from collections import Counter, OrderedDict
from collections.abc import Sequence

from workbench.generator_contract.base import Generator, Prediction
from workbench.llm.answers import MASK_BREAK, copied_from_context, value_for
from workbench.llm.client import OllamaClient, Outcome
from workbench.llm.config import OllamaConfig, signature_settings, without_server
from workbench.llm.guard import check_host
from workbench.llm.in_flight import in_flight
from workbench.llm.prompt import Prompt, build_prompt
from workbench.prediction_notes import COPIED
from workbench.text.slots import Slot

_KEPT_WINDOWS = 256  # answers kept for windows that straddle two batches


class OllamaGenerator(Generator):
    name = "ollama"
    needs_ollama = True
    stochastic = True  # sampled at the client's temperature with the run's seed (draws_with_seed)
    Config = OllamaConfig
    config: OllamaConfig

    def __init__(self, config: OllamaConfig | None = None, options=None) -> None:
        super().__init__(config, options)
        self._client: OllamaClient | None = None
        self._answers: OrderedDict[tuple, Outcome] = OrderedDict()
        self.counts: Counter[str] = Counter()  # spans, failed, copied, requests (this process)

    def load(self) -> None:
        client = self.config.client
        url = check_host(client.host, client.allow_remote)  # again: a config can be built by hand
        self._client = OllamaClient(client, url)
        self._client.check_model()

    def model_id(self) -> str:
        return self.config.client.model

    def signature_config(self) -> dict:
        # The client's settings flat, the answer budget as tokens_per_mask: the run ids of
        # runs made before the settings were nested (tests/project/test_pinned_ids.py). The server's
        # address is hashed as the default one: it is recorded (server()), not part of the run.
        return signature_settings(self.config)

    def hashed_config(self, stored: dict) -> dict:
        return without_server(stored)  # a run stored before issue 37 hashed its address

    def server(self) -> str | None:
        return self.config.client.host

    @property
    def seed(self) -> int:
        return self.config.client.seed if self.config.client.seed >= 0 else self.options.seed

    def draws_with_seed(self) -> bool:
        # The run's seed is the model's sampling seed unless the client fixes its own; at
        # temperature 0 the model decodes greedily and no seed changes the answer.
        return self.config.client.seed < 0 and self.config.client.temperature > 0

    def generate(self, slots: Sequence[Slot]) -> list[Prediction]:
        if self._client is None:
            self.load()
        client = self._client
        if client is None:
            raise RuntimeError(f"{type(self).__name__}.load() left no client")
        groups: dict[tuple, list[int]] = {}
        for i, slot in enumerate(slots):
            groups.setdefault(self._request_key(slot), []).append(i)
        prompts = {key: build_prompt(slots[members[0]], with_upos=self.options.upos_filter,
                                     max_chars=self.config.client.max_chars) for key, members in groups.items()}
        # Looked up before any answer of this call is remembered: the keys of one call are distinct.
        kept = {key: self._answers[key] for key in groups if key in self._answers}
        to_ask = [key for key in groups if key not in kept]
        mode = self.options.mode

        def ask(key: tuple) -> Outcome:
            prompt = prompts[key]
            return client.ask(prompt, _request_id(slots[groups[key][0]], prompt, mode), self.seed)

        asked = dict(zip(to_ask, in_flight(ask, to_ask, self.config.client.parallel)))
        predictions: list[Prediction | None] = [None] * len(slots)
        for key, members in groups.items():
            first, prompt = slots[members[0]], prompts[key]
            if key in asked:
                outcome = asked[key]
                self._remember(key, outcome)
                requests = _split(outcome.requests, len(members))
                seconds = [outcome.seconds / len(members)] * len(members)
            else:  # a reused answer: measured, and it cost nothing
                outcome = kept[key]
                requests, seconds = [0] * len(members), [0.0] * len(members)
            context = first.render(MASK_BREAK)  # what the model saw, masks left out
            for n, i in enumerate(members):
                predictions[i] = self._prediction(slots[i], prompt, outcome, context, seconds[n], requests[n])
        return predictions  # type: ignore[return-value]

    def _prediction(self, slot: Slot, prompt: Prompt, outcome: Outcome, context: str, seconds: float,
                    requests: int) -> Prediction:
        self.counts["spans"] += 1
        self.counts["requests"] += requests
        if outcome.answer is None:
            self.counts["failed"] += 1
            return Prediction((), failed=True, note=outcome.failure, seconds=seconds, requests=requests)
        number = slot.target_number
        value, why = value_for(outcome.answer, prompt.name_of(number), number)
        if value is None:
            self.counts["failed"] += 1
            return Prediction((), failed=True, note=why, seconds=seconds, requests=requests)
        note = ""
        if copied_from_context(value, context):
            self.counts["copied"] += 1
            note = COPIED
        return Prediction((value,), note=note, seconds=seconds, requests=requests)

    def _request_key(self, slot: Slot) -> tuple:
        """Slots that share one request: maskL, those of one window; repL, none (003 App. B
        re-prompts after every pick, even when a failed pick left the window unchanged)."""
        return slot.window_key if self.options.mode == "maskL" else (slot.window_key, slot.span_index)

    def _remember(self, key: tuple, outcome: Outcome) -> None:
        self._answers[key] = outcome
        while len(self._answers) > _KEPT_WINDOWS:
            self._answers.popitem(last=False)


def _request_id(slot: Slot, prompt: Prompt, mode: str) -> str:
    """Names a request for its seeds: a resumed run asks the same request with the same seeds."""
    target = f"|{slot.span_index}" if mode == "repL" else ""
    return f"{slot.doc_id}{target}|{hashlib.sha256(prompt.user.encode()).hexdigest()[:16]}"


def _split(total: int, parts: int) -> list[int]:
    """`total` requests over `parts` spans, as integers that sum to it (first spans get the rest)."""
    base, rest = divmod(total, parts)
    return [base + (1 if n < rest else 0) for n in range(parts)]
