"""The options every executor reads (`--executor`, `--address`, `--shards`, `--allow-remote`), and
the executor they name."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from workbench.executors.registry import EXECUTORS
from workbench.infra.errors import InvalidValue

if TYPE_CHECKING:
    from workbench.executors.contract import Executor

DEFAULT_EXECUTOR = "local"


@dataclass(frozen=True, slots=True)
class ExecutorOptions:
    """How long jobs run. executor: a name of workbench.executors.registry.EXECUTORS (local | ray).
    address: None starts a Ray cluster on this machine for the job (loopback only); "auto" joins
    the one `ray start` runs here; "ray://HOST:PORT" a remote one (refused off this machine
    without allow_remote). shards: documents of one run cut into this many tasks. num_cpus: the
    size of a local cluster started for the job (None: every core). max_retries: how often Ray
    retries a task whose worker died."""
    executor: str = DEFAULT_EXECUTOR
    address: str | None = None
    shards: int = 1
    num_cpus: int | None = None
    allow_remote: bool = False
    max_retries: int = 3

    def __post_init__(self) -> None:
        if self.executor not in EXECUTORS.names():
            raise InvalidValue(f"executor must be one of {', '.join(EXECUTORS.names())}, not {self.executor!r}")
        if not isinstance(self.shards, int) or self.shards < 1:
            raise InvalidValue(f"shards must be a whole number of at least 1, not {self.shards!r}")
        if self.num_cpus is not None and (not isinstance(self.num_cpus, int) or self.num_cpus < 1):
            raise InvalidValue(f"num_cpus must be a whole number of at least 1, not {self.num_cpus!r}")
        # What only some executors honour, and a cluster off this machine without the opt-in, are
        # refused by the executor itself, before anything opens.
        EXECUTORS.load(self.executor).check_options(self)


def executor_for(options: ExecutorOptions | None) -> Executor:
    """The executor the options name (None: the local one, with the defaults)."""
    options = options or ExecutorOptions()
    return EXECUTORS.load(options.executor)(options)
