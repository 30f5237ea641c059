"""The executors by name (a workbench.infra.plugins Registry): `--executor NAME` everywhere."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.infra.plugins import Entry, Registry

if TYPE_CHECKING:
    from workbench.executors.contract import Executor

EXECUTORS: Registry[type[Executor]] = Registry("executor", [
    Entry("local", "workbench.executors.local:LocalExecutor", "in this process, one run after another"),
    Entry("ray", "workbench.executors.ray:RayExecutor",
          "shards of runs and batches of attacks on a Ray cluster (loopback, or joined)", extra="cluster"),
])

