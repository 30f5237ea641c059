"""A benchmark's privacy half: reference runs per corpus and re-identification attacks.

A benchmark file may ask, at its top level, for

    references = ["original", "suppress", "label"]   # as `workbench reference --kind …`
    reid = ["retrieval"]                             # as `workbench privacy reid --attacker …`
    known_pair = true                                # as `workbench privacy known-pair` (issue 27)

so its report has both halves: the utility tables over the generated runs, and the privacy
table with the reference runs (the original text as the worst case, suppression and labels as
the best) beside them. Both reuse what the store already holds: references are runs with ids
from their signatures, attack results are stored per run and document.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from workbench.infra.errors import WorkbenchError
from workbench.store.records import COMPLETE
from workbench.upos.factory import DEFAULT_TAGGER

if TYPE_CHECKING:
    from workbench.data_model import Corpus


def checked_references(value) -> tuple[str, ...]:
    """A benchmark file's `references` list, each a kind of `workbench reference`."""
    from workbench.exchange.reference import KINDS
    return _checked_names(value, "references", KINDS)


def checked_attackers(value) -> tuple[str, ...]:
    """A benchmark file's `reid` list, each a re-identification attacker."""
    from workbench.privacy.reid_attacks.attackers import ATTACKERS
    return _checked_names(value, "reid", ATTACKERS)


def checked_known_pair(value) -> bool:
    """A benchmark file's `known_pair` switch: true runs the known-pair attack on every complete run."""
    if value is None:
        return False
    if not isinstance(value, bool):
        raise WorkbenchError(f"known_pair must be true or false, not {value!r}")
    return value


def _checked_names(value, key: str, known: Sequence[str]) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise WorkbenchError(f"{key} must be a list of names, not {value!r} (known: {', '.join(known)})")
    unknown = [v for v in value if v not in known]
    if unknown:
        raise WorkbenchError(f"{key}: unknown {', '.join(map(repr, unknown))} (known: {', '.join(known)})")
    return tuple(dict.fromkeys(value))


def store_references(kinds: Sequence[str], checked: Sequence, store, *, tagger: str = DEFAULT_TAGGER) -> list:
    """The reference runs of `kinds` over every corpus (with its document selection) that the
    checked runs (workbench.benchmark.configs.PreparedRun) cover, as GenerationResults, stored once."""
    if not kinds:
        return []
    from workbench.exchange.reference import reference_run
    from workbench.pipeline import make_tagger, result_of
    corpora: dict[int, Corpus] = {}
    for prepared in checked:  # one corpus object per selection, as check_benchmark made them
        corpora.setdefault(id(prepared.corpus), prepared.corpus)
    results = []
    for corpus in corpora.values():
        tagging = make_tagger(tagger, corpus, quiet=True)
        for kind in kinds:
            results.append(result_of(store, reference_run(store, corpus, kind, tagger=tagging)))
    return results


def attack_runs(attackers: Sequence[str], results: Sequence, store, *, progress: bool = False,
                log: Callable[[str], None] | None = None, cluster=None) -> None:
    """Run each attacker on every complete run whose corpus ships background knowledge; the
    results are stored (and reused) for the report's privacy table. A corpus without one is
    said once in `log` and left out: re-identification needs a background of the individuals.
    cluster: the benchmark's ExecutorOptions; with --executor ray the scoring runs on Ray too."""
    if not attackers:
        return
    from workbench.privacy.reid_attacks.background import shipped_background
    from workbench.privacy.reid_attacks.reid import reid_risk
    say = log or (lambda message: None)
    by_corpus: dict[str, list[str]] = {}
    for result in results:
        if result.run.status == COMPLETE:
            by_corpus.setdefault(result.run.corpus_name, []).append(result.run_id)
    for corpus, run_ids in by_corpus.items():
        if shipped_background(corpus) is None:
            say(f"re-identification: corpus {corpus} ships no background knowledge, so its runs are not attacked "
                f"(`workbench privacy reid RUN --background FILE` attacks them with yours)")
            continue
        for attacker in attackers:
            reid_risk(store, run_ids, attacker=attacker, progress=progress, log=log, cluster=cluster)


def attack_known_pairs(enabled: bool, results: Sequence, store) -> None:
    """The known-pair attack (workbench.privacy.known_pair_runs) on every complete run, references
    included; it needs no background knowledge, so every corpus is attacked. Its counts are kept
    with each run for the report's privacy table; the attack takes seconds and is simply redone."""
    run_ids = [r.run_id for r in results if r.run.status == COMPLETE]
    if enabled and run_ids:
        from workbench.privacy.known_pair_runs import known_pair_risk
        known_pair_risk(store, run_ids)
