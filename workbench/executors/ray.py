"""The Ray executor (`--executor ray`): shards of runs and batches of attacks on a Ray cluster
started on loopback or joined (the machinery, and the picture, are in workbench.cluster)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager

from workbench.executors.contract import Executor, RunJob, ScoringJob
from workbench.executors.options import ExecutorOptions


class RayExecutor(Executor):
    name = "ray"

    @classmethod
    def check_options(cls, options: ExecutorOptions) -> None:
        from workbench.cluster.session import check_address
        check_address(options)  # a cluster off this machine without the opt-in is refused before anything opens

    def session(self, store: object, log: Callable[[str], None] | None) -> AbstractContextManager:
        from workbench.cluster.session import joined_before_new_store
        return joined_before_new_store(self.options, store, log)

    def held(self, log: Callable[[str], None] | None) -> AbstractContextManager:
        from workbench.cluster.session import ray_cluster
        return ray_cluster(self.options, log)

    def generate(self, store, jobs: Iterable[RunJob], *, batch_size: int, progress: bool,
                 log: Callable[[str], None] | None = None,
                 after_batch: Callable[[int], None] | None = None) -> Iterator:
        from workbench.cluster.runner import generate_on_cluster
        # Every run's shards go to Ray at once, so a grid keeps every worker busy.
        return iter(generate_on_cluster(store, list(jobs), self.options, batch_size=batch_size,
                                        log=log if progress else None))

    def score(self, store, jobs: Sequence[ScoringJob], *, progress: bool,
              log: Callable[[str], None] | None = None) -> None:
        from workbench.cluster.attacks import score_on_cluster
        score_on_cluster(store, jobs, self.options, log=log)

