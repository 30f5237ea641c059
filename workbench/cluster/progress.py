"""The progress of a distributed job, a line per finished task: tasks done of all, the run's done
of its total, and the slowest node so far (the most seconds per item, so tasks of different sizes
compare), e.g.

    shards 5/12 · run 3f2a1c9e07b4 random maskL on pgv-pii-en 2/4 · slowest node gpu-03: 41 ms/span (3 tasks)
    batches 5/12 · retrieval attack on run 3f2a1c9e07b4 2/4 · slowest node gpu-03: 41 ms/doc (3 tasks)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable


class TaskProgress:
    def __init__(self, groups: Iterable[tuple[str, int, int]], write: Callable[[str], None] | None, *,
                 units: str = "shards", item: str = "span") -> None:
        """groups: (label, tasks in all, tasks already done) per run; units: what a task is
        ("shards", "batches"); item: what one task is made of, for the per-item time."""
        self.write = write or (lambda line: None)
        self.units, self.item = units, item
        self.total: dict[str, int] = {}
        self.done: dict[str, int] = {}
        for label, total, done in groups:
            self.total[label] = self.total.get(label, 0) + total
            self.done[label] = self.done.get(label, 0) + done
        self.nodes: dict[str, list[float]] = {}  # node -> [seconds, items, tasks]

    def task_done(self, label: str, node: str, seconds: float, items: int) -> None:
        self.done[label] += 1
        seen = self.nodes.setdefault(node, [0.0, 0, 0])
        seen[0] += seconds
        seen[1] += items
        seen[2] += 1
        self.write(f"{self.units} {sum(self.done.values())}/{sum(self.total.values())} · "
                   f"{label} {self.done[label]}/{self.total[label]} · {self.slowest()}")

    def slowest(self) -> str:
        node, (seconds, items, tasks) = max(self.nodes.items(), key=lambda kv: kv[1][0] / max(kv[1][1], 1))
        return f"slowest node {node}: {1000 * seconds / max(items, 1):.0f} ms/{self.item} ({tasks} tasks)"
