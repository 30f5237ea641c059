"""Re-identification attacks scored on Ray (`workbench privacy reid --executor ray`; issue 28).

    driver (the one writer of the store)
      ├─ makes each attacker as the local path does (the trained one trains, or loads its cache, here)
      ├─ cuts every run's documents still to attack into reid's batches (privacy.reid: ScoringJobs)
      ├─ sends each attacker once (ray.put), each batch as a task ─▶ worker: the job's score function
      └─ stores each finished batch's rows in one transaction (the job's save function)

What to score and how come from the privacy layer as workbench.executors.contract.ScoringJobs:
this module knows batches, attackers that travel, and Ray, never an attack's internals.

A task is one batch of one run, the very batch the local path scores, and the worker runs the
same function on the same attacker, so the stored rows equal the local ones (all but their
creation time). Stored rows are reused as locally: a batch already stored is not sent, and an
interrupted job resumes with the batches left.

Not distributed: training the trained attacker (one job that needs the whole background) and
the inference attack (workbench privacy infer, which asks an LLM or an MLM per span and has
its own resumption). The trained attacker travels with its model loaded on the CPU; one on a
GPU is refused rather than moved, since a worker task asks for a CPU only and moving the model
would change its scores.
"""

from __future__ import annotations

import copy
import socket
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from workbench.executors.contract import BatchTask, ScoringJob
from workbench.executors.options import ExecutorOptions
from workbench.infra.devices import CPU
from workbench.infra.errors import WorkbenchError


@dataclass(frozen=True)
class BatchResult:
    rows: list  # what the job's score function returned
    node: str  # the worker's host name, for the progress line
    seconds: float


def score_task(score: Callable, attacker, task: BatchTask) -> BatchResult:
    """On a worker: the batch's rows, as the local executor makes them."""
    started = time.perf_counter()
    rows = score(attacker, task)
    return BatchResult(rows, socket.gethostname(), time.perf_counter() - started)


def score_on_cluster(store, jobs: Sequence[ScoringJob], options: ExecutorOptions, *,
                     log: Callable[[str], None] | None = None) -> None:
    """Score every batch of every job on Ray, storing each batch as it finishes."""
    from workbench.cluster.session import ray_cluster
    tasks = [(job, task) for job in jobs for task in job.tasks]
    if not tasks:
        return
    for attacker in {id(job.attacker): job.attacker for job, _ in tasks}.values():
        _check_travels(attacker)
    from workbench.cluster.progress import TaskProgress
    counts = Counter(task.attack for _, task in tasks)
    progress = TaskProgress([(attack, n, 0) for attack, n in counts.items()], log, units="batches", item="doc")
    with ray_cluster(options, log) as ray:
        _run_tasks(ray, store, tasks, options, progress)


def _check_travels(attacker) -> None:
    device = getattr(attacker, "device", CPU)
    if device != CPU:
        raise WorkbenchError(f"the {attacker.name} attacker runs on {device}, and a Ray task asks for one CPU: "
                             "score it on the cluster's CPUs with -o device=cpu, or on this machine's "
                             f"{device} with --executor local")


def _travelling(attacker):
    """The attacker as it is sent: built here (scoring nothing makes the BM25 index, loads the trained
    model), so no worker indexes or trains it again; the driver's log (a terminal, a benchmark's
    file) stays here."""
    attacker.scores([])
    shipped = copy.copy(attacker)
    if hasattr(shipped, "log"):
        shipped.log = _silent
    return shipped


def _silent(message: str) -> None:
    pass


def _run_tasks(ray, store, tasks: list[tuple[ScoringJob, BatchTask]], options: ExecutorOptions, progress) -> None:
    """Send every batch, store each as it finishes (workbench.cluster.tasks)."""
    from workbench.cluster.tasks import finish_all
    remote = ray.remote(score_task).options(max_retries=options.max_retries, retry_exceptions=False, num_cpus=1)
    sent = {}  # id(attacker) -> its ObjectRef: each attacker crosses to the cluster once
    pending = {}
    for job, task in tasks:
        if id(job.attacker) not in sent:
            sent[id(job.attacker)] = ray.put(_travelling(job.attacker))
        pending[remote.remote(job.score, sent[id(job.attacker)], task)] = (job, task)

    def store_batch(item: tuple[ScoringJob, BatchTask], result: BatchResult) -> None:
        job, task = item
        job.save(store, result.rows)  # one transaction
        progress.task_done(task.attack, result.node, result.seconds, len(task.texts))

    finish_all(ray, pending, store_batch, lambda item: item[1].label, "batches")
