"""Waiting for a job's Ray tasks: each result stored on the driver as it comes, the first failure
named. The generation shards (runner.py) and the attack batches (attacks.py) both end here."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from workbench.infra.errors import WorkbenchError

Item = TypeVar("Item")  # what the driver keeps of a task: the shard task, the attack batch


def finish_all(ray, pending: dict[Any, Item], finish: Callable[[Item, Any], None], label: Callable[[Item], str],
               units: str) -> None:
    """pending: {ObjectRef: item}. finish(item, result) stores a finished task's result (one
    transaction). The first failure ends the job, named by label(item), once every task already
    finished is stored too; the tasks still running are cancelled. units: "shards", "batches"."""
    failure = None
    while pending and failure is None:
        ready, _ = ray.wait(list(pending), num_returns=1)
        for ref in ready:
            failure = _finish(ray, pending, ref, finish, label, units) or failure
    if failure is not None:
        ready, rest = ray.wait(list(pending), num_returns=len(pending), timeout=0)
        for ref in ready:
            _finish(ray, pending, ref, finish, label, units)
        for ref in rest:
            ray.cancel(ref, force=True)
        raise failure


def _finish(ray, pending: dict, ref, finish, label, units: str) -> WorkbenchError | None:
    item = pending.pop(ref)
    try:
        result = ray.get(ref)
    except ray.exceptions.RayError as exc:
        return WorkbenchError(f"{label(item)} failed: {cause(exc, ray)}; the {units} finished before are stored: "
                              "run the same command again to resume")
    finish(item, result)
    return None


def cause(exc, ray) -> str:
    """What went wrong in words: the task's own error, or how its worker died."""
    if isinstance(exc, ray.exceptions.RayTaskError):
        error = exc.cause
        if isinstance(error, WorkbenchError):
            return str(error)
        return f"{type(error).__name__}: {error}"
    if isinstance(exc, (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError)):
        return f"its worker died on every try ({type(exc).__name__})"
    return f"{type(exc).__name__}: {exc}"
