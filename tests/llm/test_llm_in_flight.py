"""workbench.llm.in_flight: results in the items' order, never more than n at once, n reached,
one at a time in the caller's thread, the first error (in order) raised and no item started after it;
and `parallel` is checked and kept out of the run signature and the attack key."""

from __future__ import annotations

import threading

import pytest

from workbench.generator_contract import create_generator
from workbench.infra.errors import WorkbenchError
from workbench.llm.in_flight import in_flight


class Gauge:
    """Counts work items running at once; each waits until `n` run together (or 10 s), so the
    peak says how many the helper started at once, whatever the scheduler does."""

    def __init__(self, n: int) -> None:
        self.n, self.lock, self.all_in = n, threading.Lock(), threading.Event()
        self.running = self.peak = 0
        self.threads: set[str] = set()

    def __call__(self, item: int) -> int:
        with self.lock:
            self.running += 1
            self.peak = max(self.peak, self.running)
            self.threads.add(threading.current_thread().name)
            if self.running >= self.n:
                self.all_in.set()
        self.all_in.wait(10)
        with self.lock:
            self.running -= 1
        return item * item


@pytest.mark.parametrize("n", [2, 3])
def test_n_at_once_and_results_in_order(n):
    gauge = Gauge(n)
    items = [5, 3, 8, 1, 9, 2, 7]
    assert in_flight(gauge, items, n) == [i * i for i in items]
    assert gauge.peak == n and len(gauge.threads) == n


def test_one_at_a_time_runs_in_the_callers_thread():
    gauge = Gauge(1)
    assert in_flight(gauge, [1, 2, 3], 1) == [1, 4, 9]
    assert gauge.peak == 1 and gauge.threads == {threading.current_thread().name}


def test_the_first_error_in_order_is_raised_and_nothing_starts_after_it():
    started = []

    def work(i):
        started.append(i)
        if i in (1, 2):
            raise ValueError(f"item {i}")
        return i

    with pytest.raises(ValueError, match="item 1"):
        in_flight(work, list(range(20)), 2)
    assert len(started) < 20  # the workers stopped taking items once one failed


@pytest.mark.parametrize("generator", ["ollama", "intact"])
@pytest.mark.parametrize("bad", ["0", "-2"])
def test_parallel_below_one_is_refused_by_name(generator, bad):
    with pytest.raises(WorkbenchError, match=r"parallel must be an integer >= 1"):
        create_generator(generator, {"parallel": bad})


def test_parallel_that_is_not_a_number_is_refused():
    with pytest.raises(WorkbenchError, match=r"option 'parallel' of generator 'ollama' must be an integer, not 'two'"):
        create_generator("ollama", {"parallel": "two"})


@pytest.mark.parametrize("generator", ["ollama", "intact"])
def test_parallel_is_not_in_the_signature(generator):
    one, four = create_generator(generator, {"parallel": "1"}), create_generator(generator, {"parallel": "4"})
    assert four.config.client.parallel == 4
    assert one.signature_config() == four.signature_config() and "parallel" not in one.signature_config()
    assert one.signature_config() != create_generator(generator, {"temperature": "0.1"}).signature_config()


def test_parallel_is_not_in_the_llm_attack_key():
    from workbench.privacy.inference_attacks.inference_attackers import make_inference_attacker
    from workbench.privacy.inference_attacks.inference_contract import attack_key
    one, four = (make_inference_attacker("ollama", 3, {"parallel": p}) for p in ("1", "4"))
    assert four.config.client.parallel == 4
    assert attack_key(one, {}) == attack_key(four, {})
    with pytest.raises(WorkbenchError, match="parallel must be an integer >= 1"):
        make_inference_attacker("ollama", 3, {"parallel": "0"})
