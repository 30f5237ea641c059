"""One metric over several runs of a corpus: the best run, the paired test of every other run
against it, and the runs the report marks as not significantly different (the dagger)."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

from workbench.infra.errors import InvalidValue
from workbench.uncertainty.corrections import BestMarks, not_different_from_best
from workbench.uncertainty.defaults import ALPHA, AR_TRIALS, SEED
from workbench.uncertainty.paired import PairedResult, approximate_randomisation, paired_bootstrap
from workbench.uncertainty.pairing import Docs

TESTS = ("ar", "bootstrap")


def compare_with_best(runs: Mapping[Hashable, Any], *, higher_is_better: bool, docs: Docs = None,
                      test: str = "ar", draws: int = AR_TRIALS, seed: int = SEED, alpha: float = ALPHA,
                      correction: str = "holm") -> tuple[BestMarks, dict[Hashable, PairedResult]]:
    """`runs`: run name → (unit id → value), all on the same units. The best run is the one with the
    best mean over its units (the first of equal ones, in the given order); each other run is tested
    against it (`test` "ar": approximate randomisation with `draws` trials, "bootstrap": paired
    bootstrap with `draws` resamples) and the p-values adjusted together (`correction`)."""
    if test not in TESTS:
        raise InvalidValue(f"test must be one of {', '.join(TESTS)}, not {test!r}")
    if not runs:
        raise InvalidValue("no runs to compare")
    means = {name: _mean(values) for name, values in runs.items()}
    scored = [n for n in means if means[n] == means[n]]  # NaN != NaN: a run with no value is never the best
    if not scored:
        raise InvalidValue("no run has a value to compare")
    pick = max if higher_is_better else min
    best = pick(scored, key=lambda n: means[n])
    results: dict[Hashable, PairedResult] = {}
    for name, values in runs.items():
        if name == best:
            continue
        pair_names = (str(name), str(best))
        if test == "ar":
            results[name] = approximate_randomisation(values, runs[best], docs=docs, trials=draws, seed=seed,
                                                      names=pair_names)
        else:
            results[name] = paired_bootstrap(values, runs[best], docs=docs, resamples=draws, seed=seed,
                                             names=pair_names)
    marks = not_different_from_best({n: r.p_value for n, r in results.items()}, best, alpha=alpha,
                                    correction=correction)
    return marks, results


def _mean(values: Any) -> float:
    kept = [float(v) for v in dict(values.items()).values() if v == v]
    return sum(kept) / len(kept) if kept else float("nan")
