"""Long jobs beyond one process: the executor option and its Ray implementation (issue 28).

    driver (the user's machine, the one writer of the SQLite store)
      ├─ plans each run as the local engine does (signature, claim, UPOS cached, run record)
      ├─ cuts it into shards of documents (workbench.cluster.shards)
      ├─ sends every shard not yet stored to Ray ─▶ worker: the same engine over the shard
      │                                               (workbench.cluster.shard_task)
      └─ stores each finished shard in one transaction, finishes a run when all are in

The local executor (the default) is the engine as it always was and needs no Ray. With
`--executor ray` a task is a shard of one run's documents (a run is one shard unless
`--shards N` asks for more); a benchmark sends the shards of all its runs at once, so a
grid keeps every worker busy. Documents are independent in maskL and repL, so a shard's
predictions equal what the whole run would store for its documents; `--consistent corpus`
links documents through shared entities, so its shards are whole groups of linked
documents (workbench.cluster.shards).
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.errors import InvalidValue

EXECUTORS = ("local", "ray")  # the default first


@dataclass(frozen=True, slots=True)
class ClusterOptions:
    """How long jobs run. executor: local | ray. address: None starts a Ray cluster on this
    machine for the job (loopback only); "auto" joins the one `ray start` runs here;
    "ray://HOST:PORT" a remote one (refused off this machine without allow_remote).
    shards: documents of one run cut into this many tasks. num_cpus: the size of a local
    cluster started for the job (None: every core). max_retries: how often Ray retries a
    task whose worker died."""
    executor: str = "local"
    address: str | None = None
    shards: int = 1
    num_cpus: int | None = None
    allow_remote: bool = False
    max_retries: int = 3

    def __post_init__(self) -> None:
        if self.executor not in EXECUTORS:
            raise InvalidValue(f"executor must be one of {', '.join(EXECUTORS)}, not {self.executor!r}")
        if not isinstance(self.shards, int) or self.shards < 1:
            raise InvalidValue(f"shards must be a whole number of at least 1, not {self.shards!r}")
        if self.num_cpus is not None and (not isinstance(self.num_cpus, int) or self.num_cpus < 1):
            raise InvalidValue(f"num_cpus must be a whole number of at least 1, not {self.num_cpus!r}")
        if self.executor == "local" and (self.address is not None or self.shards != 1):
            raise InvalidValue("--address and --shards need --executor ray")
        from workbench.cluster.session import check_address
        check_address(self)  # a cluster off this machine without the opt-in is refused before anything opens

    @property
    def distributed(self) -> bool:
        return self.executor == "ray"

