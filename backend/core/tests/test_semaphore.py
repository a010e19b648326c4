"""The Redis semaphore that caps deliveries per target across every outbound worker."""

from __future__ import annotations

import threading
import time

from backend.core import semaphore


def test_at_most_limit_holders_then_a_place_frees(redis_db: object) -> None:
    first, second = semaphore.acquire("k", 2, 60), semaphore.acquire("k", 2, 60)
    assert first and second
    assert semaphore.acquire("k", 2, 60) is None
    semaphore.release("k", first)
    assert semaphore.acquire("k", 2, 60) is not None
    assert semaphore.acquire("other", 1, 60) is not None  # keys are independent


def test_a_dead_holder_stops_counting_after_its_lease(redis_db: object) -> None:
    assert semaphore.acquire("k", 1, 0.5) is not None  # never released: a killed worker
    assert semaphore.acquire("k", 1, 0.5) is None
    time.sleep(0.7)
    assert semaphore.acquire("k", 1, 0.5) is not None


def test_racing_threads_never_exceed_the_limit(redis_db: object) -> None:
    holding = 0
    most = 0
    lock = threading.Lock()

    def work() -> None:
        nonlocal holding, most
        for _ in range(20):
            with semaphore.held("race", 2, 60) as got:
                if not got:
                    continue
                with lock:
                    holding += 1
                    most = max(most, holding)
                time.sleep(0.001)
                with lock:
                    holding -= 1

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert 1 <= most <= 2
