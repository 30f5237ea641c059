"""The local executor (the default): everything in this process, one run after another, as the
engine always ran. Copy this file for a new executor (CONTRIBUTING.md, "Where a new piece goes")."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, nullcontext

from workbench.executors.contract import Executor, RunJob, ScoringJob
from workbench.executors.options import ExecutorOptions
from workbench.infra.errors import InvalidValue
from workbench.infra.progress import progress_bar


class LocalExecutor(Executor):
    name = "local"

    @classmethod
    def check_options(cls, options: ExecutorOptions) -> None:
        if options.allow_remote:
            raise InvalidValue("--allow-remote needs --executor ray")
        if options.address is not None or options.shards != 1:
            raise InvalidValue("--address and --shards need --executor ray")

    def session(self, store: object, log: Callable[[str], None] | None) -> AbstractContextManager:
        return nullcontext()

    def held(self, log: Callable[[str], None] | None) -> AbstractContextManager:
        return nullcontext()

    def generate(self, store, jobs: Iterable[RunJob], *, batch_size: int, progress: bool,
                 log: Callable[[str], None] | None = None,
                 after_batch: Callable[[int], None] | None = None) -> Iterator:
        from workbench.generation.engine import run_generation
        for job in jobs:  # lazily: a benchmark reports each run as it finishes
            yield run_generation(store, job.corpus, job.generator, job.tagger, batch_size=batch_size,
                                 progress=progress, retry_failed=job.retry_failed, after_batch=after_batch,
                                 name=job.name)

    def score(self, store, jobs: Sequence[ScoringJob], *, progress: bool,
              log: Callable[[str], None] | None = None) -> None:
        for job in jobs:
            if not job.tasks:
                continue
            # The workbench's one bar (workbench.infra.progress): drawn on a terminal only, never into a pipe or log.
            bar = progress_bar(progress, sum(len(t.texts) for t in job.tasks), job.label, unit="doc")
            for task in job.tasks:
                job.save(store, job.score(job.attacker, task))
                bar.update(len(task.texts))
            bar.close()
