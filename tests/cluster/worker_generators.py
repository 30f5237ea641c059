"""Generators that misbehave, or keep count, on a Ray worker: for the executor's tests.

They are the real random baseline (same name, same config, so the same run id as a plain
random run) with one thing added; tests send them to workers pickled by value
(ray.cloudpickle.register_pickle_by_value), since the workers cannot import tests/.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

from workbench.adapters.baselines.random_baseline import RandomBaseline


class KilledOnce(RandomBaseline):
    """Kills its worker process at its second batch, the first time any worker runs it: the
    marker file says it happened, so Ray's retry runs through."""
    marker: str = ""

    def generate(self, slots):
        self.calls = getattr(self, "calls", 0) + 1
        if self.calls == 2 and not Path(self.marker).exists():
            Path(self.marker).write_text(str(os.getpid()))
            os.kill(os.getpid(), signal.SIGKILL)  # mid-shard: the first batch is made, not returned
        return super().generate(slots)


class FailsOn(RandomBaseline):
    """Raises for every slot of one document, on every try."""
    doc_id: str = ""

    def generate(self, slots):
        if any(s.doc_id == self.doc_id for s in slots):
            raise RuntimeError("this generator cannot do that document")
        return super().generate(slots)


class CountsLoads(RandomBaseline):
    """Appends "load PID" when it loads and "shard PID" at each shard's first batch to a file."""
    log: str = ""

    def load(self):
        with open(self.log, "a") as out:
            out.write(f"load {os.getpid()}\n")
        super().load()

    def generate(self, slots):
        with open(self.log, "a") as out:
            out.write(f"batch {os.getpid()}\n")
        return super().generate(slots)
