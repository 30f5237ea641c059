"""An LLM judge for error annotation: an instruction model proposes 003's tag for each sampled pseudonym.

    workbench annotations judge RUN… --model qwen2.5:1.5b-instruct

The pseudonyms are those a human session covers (workbench.annotation.sampling: a named sample, or
the same recipe of runs, count per run, unit and seed, which draws the same items). Each is shown
in context as an annotator sees it and the model answers one tag as JSON (judge_prompt.py). The
tag is stored as an annotation of the annotator `judge:<model>` (source "judge") with the prompt
version, so `workbench annotations agreement` and the Agreement page give its Cohen's kappa against
every person, and the Annotate page can show it as a suggestion.

Requests go through the generators' Ollama client (workbench.llm.client) with its loopback guard,
deadline, retries and give-up: a request that times out, is cut off, is not JSON or names no tag
of the tagset is retried with another seed; an item still without a tag after the attempts is a
fault (workbench.store.judge_faults) with the client's reason, never an exception, and the next
call asks it again. Items the judge already tagged with this prompt version are not asked again
(an interrupted call resumes), unless `redo`. A call whose server was unreachable, answered errors
for more than half of the items, or that tagged none of those it asked fails (JudgeSummary.verdict:
the command exits 3 or 4 naming the causes with their counts, issue 37).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from workbench.annotation.judge_prompt import PROMPT_VERSION, build_judge_prompt, read_tag
from workbench.annotation.pseudonym_context import item_context
from workbench.annotation.sampling import SampleRecipe, draw_sample, resolve_run_ids
from workbench.annotation.storage import JUDGE_PREFIX, Annotation, AnnotationStore, SampleItem
from workbench.infra.errors import WorkbenchError
from workbench.llm.config import OllamaSettings
from workbench.llm.verdict import Verdict, verdict_of
from workbench.store.judge_faults import JudgeFault, clear_fault, save_fault

# A low temperature: the judge should give its most likely tag, yet a retry after an unusable
# answer is a new draw (each attempt has its own seed). The answer is a few tokens.
JUDGE_CLIENT = OllamaSettings(temperature=0.2, tokens_per_answer=24)


@dataclass(frozen=True, slots=True)
class JudgeConfig:
    client: OllamaSettings = JUDGE_CLIENT
    window: int = 2  # sentences either side of the target, as the Annotate page shows
    redo: bool = False  # ask again items this judge already tagged with this prompt version


@dataclass(frozen=True, slots=True)
class JudgeSummary:
    judge: str
    prompt_version: str
    items: int  # pseudonyms in the sample
    kept: int  # tagged earlier with this prompt version, not asked again
    tagged: int  # tagged by this call
    faults: int  # left without a tag by this call (stored as faults)
    requests: int
    seconds: float
    tags: dict[str, int] = field(default_factory=dict)  # this call's tags
    reasons: dict[str, int] = field(default_factory=dict)  # this call's fault reasons

    @property
    def verdict(self) -> Verdict:
        """Whether this call failed, and why, over the items it asked (workbench.llm.verdict): exit 3
        when items met an unreachable server, 4 when more than half met server errors (HTTP
        errors, malformed streams) or none was tagged."""
        return verdict_of((reason for reason, n in self.reasons.items() for _ in range(n)), self.items - self.kept)


def judge_annotator(model: str) -> str:
    return JUDGE_PREFIX + model


def judge_sample(annotations: AnnotationStore, run_refs: Sequence[str], *, sample: str | None = None,
                 per_run: int | None = 60, unit: str = "document", seed: int = 0) -> list[SampleItem]:
    """The named sample's items (of the given runs only, when some are given), or a sample drawn
    over the runs as `workbench annotations sample` draws it."""
    runs = resolve_run_ids(annotations.run_store, run_refs)
    if sample is not None:
        items = annotations.sample(sample)
        chosen = [it for it in items if runs is None or it.run_id in runs]
        if not chosen:
            raise WorkbenchError(f"sample {sample!r} holds no pseudonym of run(s) {', '.join(run_refs)}")
        return chosen
    if not runs:
        raise WorkbenchError("name the runs to judge, or a sample with --sample")
    return draw_sample(annotations.run_store, SampleRecipe(tuple(runs), per_run, unit, seed))


def connect(settings: OllamaSettings):
    """The Ollama client, after the loopback guard and a check that the server has the model."""
    from workbench.llm.client import OllamaClient
    from workbench.llm.guard import check_host

    client = OllamaClient(settings, check_host(settings.host, settings.allow_remote))
    client.check_model()
    return client


def judge_items(annotations: AnnotationStore, items: Sequence[SampleItem], config: JudgeConfig = JudgeConfig(),
                *, client=None, progress: Callable[[int, int], None] | None = None) -> JudgeSummary:
    """Ask the judge about every item not yet tagged by it (with this prompt version) and store the answers."""
    from workbench.llm.in_flight import in_flight

    judge = judge_annotator(config.client.model)
    client = client or connect(config.client)
    done = {a.item for a in annotations.annotations({it.run_id for it in items}, [judge])
            if a.prompt_version == PROMPT_VERSION}
    todo = [it for it in items if config.redo or (it.run_id, it.doc_id, it.span_index) not in done]
    seed = max(config.client.seed, 0)
    cache: dict = {}
    tags: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    requests, started = 0, time.perf_counter()
    chunk = 4 * config.client.parallel  # answers are stored a chunk at a time: an interruption loses little

    def ask(item: SampleItem):
        ctx = item_context(annotations.run_store, item.run_id, item.doc_id, item.span_index, config.window, cache)
        key = f"{item.run_id}|{item.doc_id}|{item.span_index}|{PROMPT_VERSION}"
        return client.ask(build_judge_prompt(ctx, annotations.tagset), key, seed,
                          check=lambda answer: read_tag(answer, annotations.tagset))

    for first in range(0, len(todo), chunk):
        part = todo[first:first + chunk]
        for item, outcome in zip(part, in_flight(ask, part, config.client.parallel)):
            requests += outcome.requests
            found = (item.run_id, item.doc_id, item.span_index)
            if outcome.answer is None:
                reasons[_reason(outcome.failure)] += 1
                save_fault(annotations.run_store, JudgeFault(*found, judge, PROMPT_VERSION, outcome.failure,
                                                             outcome.requests), time.time())
                continue
            tag = read_tag(outcome.answer, annotations.tagset)
            tags[tag] += 1
            annotations.save(Annotation(*found, judge, tag, "", "judge", prompt_version=PROMPT_VERSION))
            clear_fault(annotations.run_store, found, judge)
        if progress is not None:
            progress(min(first + chunk, len(todo)), len(todo))
    return JudgeSummary(judge, PROMPT_VERSION, len(items), len(items) - len(todo), sum(tags.values()),
                        sum(reasons.values()), requests, time.perf_counter() - started, dict(tags), dict(reasons))


def _reason(failure: str) -> str:
    from workbench.llm.stats import reason_of
    return reason_of(failure)
