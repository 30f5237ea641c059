"""Re-identification attacks scored on Ray (`workbench privacy reid --executor ray`; issue 28).

    driver (the one writer of the store)
      ├─ makes each attacker as the local path does (the trained one trains, or loads its cache, here)
      ├─ cuts every run's documents still to attack into reid's batches (reid.todo_batches)
      ├─ sends each attacker once (ray.put), each batch as a task ─▶ worker: reid.score_batch
      └─ stores each finished batch's rows in one transaction

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
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from workbench.cluster import ClusterOptions
from workbench.errors import WorkbenchError

SHOWN_DOCUMENTS = 5  # a failed batch names this many of its documents


@dataclass(frozen=True)
class BatchTask:
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
class BatchResult:
    rows: list  # ReidRow
    node: str  # the worker's host name, for the progress line
    seconds: float


def score_task(attacker, task: BatchTask) -> BatchResult:
    """On a worker: the batch's rows, as reid's local loop makes them."""
    from workbench.privacy.reid import score_batch
    started = time.perf_counter()
    rows = score_batch(attacker, task.run_id, task.key, task.texts, task.hashes)
    return BatchResult(rows, socket.gethostname(), time.perf_counter() - started)


def attack_on_cluster(store, runs: Sequence[tuple], options: ClusterOptions, *,
                      log: Callable[[str], None] | None = None) -> None:
    """Attack every (run, texts, attacker, attack key) on Ray, storing each batch as it finishes."""
    from workbench.cluster.session import ray_cluster
    tasks = _tasks(store, runs)
    if not tasks:
        return
    for attacker in {id(a): a for a, _ in tasks}.values():
        _check_travels(attacker)
    from collections import Counter

    from workbench.cluster.progress import TaskProgress
    counts = Counter(task.attack for _, task in tasks)
    progress = TaskProgress([(attack, n, 0) for attack, n in counts.items()], log, units="batches", item="doc")
    with ray_cluster(options, log) as ray:
        _run_tasks(ray, store, tasks, options, progress)


def _tasks(store, runs: Sequence[tuple]) -> list[tuple[object, BatchTask]]:
    """(attacker, task) for every batch not yet stored, the runs in order, each run's batches in order."""
    from workbench.privacy.reid import todo_batches
    out = []
    for run, texts, attacker, key in runs:
        batches, hashes = todo_batches(store, run, texts, attacker, key)
        for n, batch in enumerate(batches, 1):
            shown = ", ".join(batch[:SHOWN_DOCUMENTS]) + (f", … ({len(batch)} documents)"
                                                          if len(batch) > SHOWN_DOCUMENTS else "")
            out.append((attacker, BatchTask(run.run_id, key, {d: texts[d] for d in batch},
                                            {d: hashes[d] for d in batch}, f"{attacker.name} attack on run "
                                            f"{run.run_id[:12]}", f"batch {n}/{len(batches)} (documents {shown})")))
    return out


def _check_travels(attacker) -> None:
    device = getattr(attacker, "device", "cpu")
    if device != "cpu":
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


def _run_tasks(ray, store, tasks: list, options: ClusterOptions, progress) -> None:
    """Send every batch, store each as it finishes (workbench.cluster.tasks)."""
    from workbench.cluster.tasks import finish_all
    from workbench.privacy.reid_store import save_rows
    remote = ray.remote(score_task).options(max_retries=options.max_retries, retry_exceptions=False, num_cpus=1)
    sent = {}  # id(attacker) -> its ObjectRef: each attacker crosses to the cluster once
    pending = {}
    for attacker, task in tasks:
        if id(attacker) not in sent:
            sent[id(attacker)] = ray.put(_travelling(attacker))
        pending[remote.remote(sent[id(attacker)], task)] = task

    def store_batch(task: BatchTask, result: BatchResult) -> None:
        save_rows(store, result.rows)  # one transaction
        progress.task_done(task.attack, result.node, result.seconds, len(task.texts))

    finish_all(ray, pending, store_batch, lambda task: task.label, "batches")
