"""How big a benchmark is before it starts: runs, spans and a rough time, and when to ask first.

A benchmark file can plan a thousand masked-LM runs in four lines (issue 24 item 18: about
9.5 days on a 2-core machine, started at once). `workbench benchmark` prints this plan and,
above ASK_ABOVE_RUNS runs or ASK_ABOVE_SECONDS of estimated time, asks before it starts (or
needs --yes without a terminal), as `runs --delete` does.

The time is an estimate, not a promise: per generator, the mean generation time per span of
the runs of that generator already in the store (the `seconds` each prediction records),
else the rough rate its class declares (Generator.spans_per_second_estimate); runs finished before are reused and cost
nothing, so it is an upper bound when some are. A benchmark's inference attack
(workbench.benchmark.inference) is estimated apart, from the spans of its samples and its
measured rate, and said on the same line.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.generator_contract.registry import GENERATORS

ASK_ABOVE_RUNS = 100  # the shipped benchmarks plan 6 to 25 runs
ASK_ABOVE_SECONDS = 12 * 3600  # more than a night's work


def fallback_spans_per_second(names) -> dict[str, float]:
    """Spans per second where the store has no run of the generator yet: each generator class's
    own spans_per_second_estimate (workbench.generator_contract.base.Generator), for the names
    that declare one; an unknown name is left out (the plan lists it as not estimated)."""
    rates = {}
    for name in set(names):
        if name in GENERATORS and (rate := GENERATORS.load(name).spans_per_second_estimate) is not None:
            rates[name] = rate
    return rates


@dataclass(frozen=True, slots=True)
class PlanSize:
    runs: int
    spans: int  # spans generated if no run is in the store yet
    seconds: float  # estimated, over the runs whose generator has a rate
    unestimated: tuple[str, ...] = ()  # generators without a rate (no stored run, no fallback)
    inference_spans: int = 0  # spans the inference attack's samples hold over every run (references too)
    inference_seconds: float = 0.0  # its estimate

    @property
    def total_seconds(self) -> float:
        return self.seconds + self.inference_seconds

    @property
    def needs_confirmation(self) -> bool:
        return self.runs > ASK_ABOVE_RUNS or self.total_seconds > ASK_ABOVE_SECONDS

    def line(self) -> str:
        time = f"about {duration(self.seconds)} here"
        if self.unestimated:
            time += f" plus the runs of {', '.join(self.unestimated)} (no stored run to estimate from)"
        infer = (f"; the inference attack on {self.inference_spans:,} spans of its samples, about "
                 f"{duration(self.inference_seconds)}" if self.inference_spans else "")
        # The estimate is the generating (and the inference attack): what comes on top is named, not guessed.
        return (f"plan: {self.runs} run(s), {self.spans:,} spans; generating {time}{infer}; runs already finished "
                "in the store are reused; a model built on first use and the report come on top (each says what it "
                "costs)")


def duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    if seconds < 48 * 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"


def plan_size(prepared: list, store=None, *, inference=None, references: int = 0) -> PlanSize:
    """The size of the checked runs (workbench.benchmark.configs.PreparedRun); store: a RunStore
    to take the rates from, or None (a store not created yet); inference: the benchmark's
    InferencePlan (None: no attack), over the runs and `references` reference runs per corpus."""
    rates = {**fallback_spans_per_second(run.planned.generator for run in prepared),
             **(store.spans_per_second() if store is not None else {})}
    seconds, unknown = 0.0, []
    for run in prepared:
        name = run.planned.generator
        if name in rates:
            seconds += run.corpus.n_slots / rates[name]
        elif name not in unknown:
            unknown.append(name)
    from workbench.benchmark.inference import inference_estimate
    attacked, attack_seconds = inference_estimate(inference, prepared, references, store)
    return PlanSize(len(prepared), sum(run.corpus.n_slots for run in prepared), seconds, tuple(unknown), attacked,
                    attack_seconds)
