"""The stored run a planned run is, when an earlier version of the workbench stored it under another id.

A run id hashes the run's signature. When a version stops hashing a setting that does not change
what a run generates, the runs stored before still carry ids that hashed it. Issue 37: the LLM
generators' server address (`-o host=…`) is now hashed as the default address
(workbench.llm.config.SERVER_FIELDS), so a run made at the default address kept its id, but one made
at another address has an id that names that address. Such a run is found here: a stored run of the
same generator and corpus whose signature, its config read as this version hashes it
(Generator.hashed_config), has the planned run's id. The engine then resumes it under its own id,
so `--retry-failed` after the server moved to another port finds the failed run, however old.
"""

from __future__ import annotations

from dataclasses import replace

from workbench.generator_contract.base import Generator
from workbench.store import RunRecord, RunStore
from workbench.store.signature import GENERATED


def earlier_run(store: RunStore, planned: RunRecord, generator: Generator) -> RunRecord | None:
    """The stored run `planned` is, stored under an older id; None when there is none (or when the
    planned id itself is stored). Of several (the same run made at two addresses before issue 37),
    the earliest made."""
    if store.get_run(planned.run_id) is not None:
        return None
    found = []
    for run in store.runs():
        if run.source != GENERATED or run.generator != planned.generator or run.corpus_hash != planned.corpus_hash:
            continue
        config = generator.hashed_config(dict(run.config))
        if config != run.config and replace(run.signature_record, config=config).run_id == planned.run_id:
            found.append(run)
    return min(found, key=lambda r: r.created, default=None)
