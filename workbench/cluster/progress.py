"""The progress of a distributed job, a line per finished shard: shards done of all, the run's
shards done of its total, and the slowest node so far (the most seconds per span, so shards
of different sizes compare), e.g.

    shards 5/12 · run 3f2a1c9e07b4 random maskL on pgv-pii-en 2/4 · slowest node gpu-03: 41 ms/span (3 shards)
"""

from __future__ import annotations

from typing import Callable, Sequence


class ShardProgress:
    def __init__(self, runs: Sequence[tuple[str, int, int]], write: Callable[[str], None] | None) -> None:
        """runs: (label, shards in all, shards already stored) per run with work left."""
        self.write = write or (lambda line: None)
        self.total = {label: total for label, total, _ in runs}
        self.done = {label: done for label, _, done in runs}
        self.all_total, self.all_done = sum(self.total.values()), sum(self.done.values())
        self.nodes: dict[str, list[float]] = {}  # node -> [seconds, spans, shards]

    def shard_done(self, label: str, node: str, seconds: float, spans: int) -> None:
        self.done[label] += 1
        self.all_done += 1
        seen = self.nodes.setdefault(node, [0.0, 0, 0])
        seen[0] += seconds
        seen[1] += spans
        seen[2] += 1
        self.write(f"shards {self.all_done}/{self.all_total} · {label} {self.done[label]}/{self.total[label]} · "
                   f"{self.slowest()}")

    def slowest(self) -> str:
        node, (seconds, spans, shards) = max(self.nodes.items(), key=lambda kv: kv[1][0] / max(kv[1][1], 1))
        return f"slowest node {node}: {1000 * seconds / max(spans, 1):.0f} ms/span ({shards} shard(s))"
