"""Waiting for a condition in tests, never for a fixed time: a fixed sleep is too short on a
slow machine and wasted on a fast one, and it says nothing about what the test waits for."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_until(predicate: Callable[[], T], timeout: float, what: str, interval: float = 0.05) -> T:
    """Call `predicate` every `interval` seconds until it returns something true, and return that;
    after `timeout` seconds fail the test with "timed out after Ns waiting for <what>"."""
    deadline = time.monotonic() + timeout
    while True:
        result = predicate()
        if result:
            return result
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(interval)
