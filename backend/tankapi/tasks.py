"""Celery tasks of the tank stream: the buffer flush (beat, every second), closing a test, the silence closer.

All take ids (or nothing), are idempotent and run on named queues: the flush and the close on `ingest`, so a
close is served in order with the flushes and its post-processing never misses buffered seconds.
"""

from __future__ import annotations

import logging
import time

from celery import shared_task
from django.db import transaction

from backend.core import pipeline
from backend.tankapi import flush, lifecycle

log = logging.getLogger(__name__)


@shared_task(name="backend.tankapi.tasks.flush_buffer", ignore_result=True)
def flush_buffer() -> dict[str, object]:
    """Drain the buffer into ClickHouse (beat: every second). Overlapping runs skip on the flush lock."""
    result = flush.flush_all()
    return {"entries": result.entries, "seconds": result.second_rows, "error": result.error}


@shared_task(
    name="backend.tankapi.tasks.finish_test",
    bind=True,
    max_retries=720,  # an hour of ClickHouse outage at 5 s
    default_retry_delay=5,
    acks_late=True,
)
def finish_test(self: object, test_id: int) -> None:
    """After close: flush what the buffer still holds, then tell the pipeline the data landed (core/pipeline.py).

    If ClickHouse is down the flush fails and the task retries, so the post-processing waits for the data.
    Running it twice queues the next step twice, which the pipeline's steps must (and do) tolerate.
    """
    deadline = time.monotonic() + 60
    result = flush.flush_all()
    while result.skipped_lock and time.monotonic() < deadline:
        # The beat's flush holds the lock; it takes well under a second, so wait for it instead of a retry round.
        time.sleep(0.05)
        result = flush.flush_all()
    if result.error or result.skipped_lock:
        # ClickHouse is down (or the lock is stuck): try again later, data first.
        raise self.retry()  # type: ignore[attr-defined]
    pipeline.after(pipeline.LANDED, test_id)


@shared_task(name="backend.tankapi.tasks.close_silent_tests", ignore_result=True)
def close_silent_tests() -> list[int]:
    """Close online tests whose tank went silent for TANKODROM_ONLINE_SILENCE_S (beat: every minute), each finished
    as a close.json closes it."""
    closed = lifecycle.close_silent_tests()
    for test_id in closed:
        finish_after_commit(test_id)
    return closed


def finish_after_commit(test_id: int) -> None:
    """Queue finish_test for a test lifecycle.close_test just closed, once its transaction commits."""
    transaction.on_commit(lambda: finish_test.delay(test_id))
