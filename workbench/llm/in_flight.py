"""Independent LLM requests kept N at a time in flight: `parallel=N` of the ollama and intact
generators and of the LLM inference attacker.

    results = in_flight(work, items, n)   # [work(item) for item in items], at most n at once

Results come back in the items' order, so output does not depend on which request finished
first. n = 1 runs them one after the other in the caller's thread, as before the option
existed. The workers are daemon threads: an interrupted run does not wait at exit for
requests still in flight (each has its own deadline, workbench.llm.client). The first
exception of a work item (in the items' order) is raised once every started item has ended;
items not yet started are then not started.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def in_flight(work: Callable[[T], R], items: Sequence[T], n: int) -> list[R]:
    if n <= 1 or len(items) <= 1:
        return [work(item) for item in items]
    results: list = [None] * len(items)
    errors: dict[int, BaseException] = {}
    lock = threading.Lock()
    todo = iter(range(len(items)))

    def worker() -> None:
        while True:
            with lock:
                i = None if errors else next(todo, None)
            if i is None:
                return
            try:
                results[i] = work(items[i])
            except BaseException as exc:  # noqa: BLE001 - raised in the caller's thread
                with lock:
                    errors[i] = exc

    threads = [threading.Thread(target=worker, name=f"llm-in-flight-{k}", daemon=True)
               for k in range(min(n, len(items)))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[min(errors)]
    return results
