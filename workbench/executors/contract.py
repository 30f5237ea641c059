"""The executor contract: the work an executor is given, and what it must do with it.

A job's steps call an executor through this interface only: `session` / `held` for what must be
joined before the store opens or for a whole benchmark, `generate` for runs, `score` for
re-identification batches. The work is described by records made by the layer that knows it
(generation makes RunJobs, privacy makes ScoringJobs with its own scoring and storing
functions), so an executor never imports an attack's or a generator's internals.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from workbench.data_model import Corpus
    from workbench.executors.options import ExecutorOptions
    from workbench.generator_contract.base import Generator
    from workbench.store import RunStore
    from workbench.store.records import RunRecord
    from workbench.upos.base import Tagger

@dataclass
class RunJob:
    """One run to generate: what generate_run is given, made ready."""
    corpus: Corpus
    generator: Generator  # not loaded
    tagger: Tagger
    name: str | None = None
    retry_failed: bool = False


@dataclass(frozen=True)
class BatchTask:
    """One batch of one run's documents to score, stored in one transaction."""
    run_id: str
    key: str  # the attack key
    texts: dict[str, str]  # doc_id -> the document as the run pseudonymised it, in the batch's order
    hashes: dict[str, str]  # doc_id -> sha256 of that text
    attack: str  # "retrieval attack on run 3f2a1c9e07b4"
    batch: str  # "batch 2/4 (documents doc-c, doc-d)"

    @property
    def label(self) -> str:
        return f"{self.attack}, {self.batch}"


@dataclass(frozen=True)
class ScoringJob:
    """One attacker's batches over one run. score(attacker, task) -> rows is a pure, module-level
    function (a Ray worker imports it by name and computes what this process would); save(store,
    rows) stores one batch in one transaction, here, the one writer of the store."""
    label: str  # "retrieval attack on run 3f2a1c9e07b4"
    attacker: Any  # the privacy layer's Attacker
    tasks: list[BatchTask]
    score: Callable[[Any, BatchTask], list]
    save: Callable[[RunStore, list], None]


class Executor(ABC):
    name: ClassVar[str]

    def __init__(self, options: ExecutorOptions) -> None:
        self.options = options

    @classmethod
    def check_options(cls, options: ExecutorOptions) -> None:
        """Refuse (InvalidValue, WorkbenchError) what this executor cannot honour; nothing is opened."""
        return None  # by default: nothing beyond ExecutorOptions' own checks

    @abstractmethod
    def session(self, store: object, log: Callable[[str], None] | None) -> AbstractContextManager:
        """What must be joined before `store` (a RunStore or the path of one) is opened for one run:
        a store not there yet must not be created by a job that cannot start."""

    @abstractmethod
    def held(self, log: Callable[[str], None] | None) -> AbstractContextManager:
        """The executor held for a job of many steps (a benchmark's runs and attacks)."""

    @abstractmethod
    def generate(self, store: RunStore, jobs: Iterable[RunJob], *, batch_size: int, progress: bool,
                 log: Callable[[str], None] | None = None,
                 after_batch: Callable[[int], None] | None = None) -> Iterator[RunRecord]:
        """Generate (or resume, or reuse) every job's run; their records in the jobs' order, each
        as soon as the executor has it (jobs may be a lazy iterable)."""

    @abstractmethod
    def score(self, store: RunStore, jobs: Sequence[ScoringJob], *, progress: bool,
              log: Callable[[str], None] | None = None) -> None:
        """Score and store every batch of every job; a batch stored is never scored again."""
