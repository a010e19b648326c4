"""Celery tasks of the notifications: `notify_test` (queue `default`) is the pipeline's step after a test's
diagnosis (backend/core/pipeline.py).

`notify_test` takes a test id and queues its deliveries (unique per target, test and event: running it twice
queues nothing new). `deliver` sends one, on the `outbound` queue that only the outbound worker pool consumes: a
target that never answers holds an outbound thread for its timeout, never the tank stream's flush or an upload.
At most TANKODROM_OUTBOUND_PER_TARGET deliveries to one target run at once (a Redis semaphore); one that finds its
target busy waits TANKODROM_OUTBOUND_BUSY_S without spending an attempt. A failure that may pass (no answer, 5xx,
429) is retried with exponential backoff (TANKODROM_NOTIFY_BACKOFF_S × 2^attempt, at most
TANKODROM_NOTIFY_RETRIES times), then the delivery is marked failed; a sent delivery is never sent again.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from backend.core import semaphore
from backend.notify import service
from backend.notify.models import DeliveryStatus
from backend.regressions import kpis

log = logging.getLogger(__name__)


def backoff_s(retries: int) -> float:
    base_s: float = float(settings.TANKODROM_NOTIFY_BACKOFF_S)
    return base_s * 2.0**retries


@shared_task(name="backend.notify.tasks.notify_test", ignore_result=True)
def notify_test(test_id: int) -> list[int]:
    # The last step of a test's post-processing: its KPIs go into the cache for the dashboard first.
    kpis.warm(test_id)
    created = service.queue_for_test(test_id)
    for delivery_id in created:
        deliver.delay(delivery_id)
    return created


@shared_task(name="backend.notify.tasks.announce_failures", ignore_result=True)
def announce_failures() -> list[int]:
    """Periodic (beat): failed tests of the last day that no diagnosis announced (a phout upload that failed)."""
    since = timezone.now() - timedelta(days=1)
    created: list[int] = []
    for test_id in service.unannounced_failures(since):
        created.extend(notify_test(test_id))
    return created


def target_key(target_id: int) -> str:
    return f"outbound:target:{target_id}"


@shared_task(name="backend.notify.tasks.deliver", bind=True, ignore_result=True, max_retries=None)
def deliver(self: Any, delivery_id: int) -> str:
    target_id = service.target_of(delivery_id)
    if target_id is None:
        return "gone"
    lease_s = float(settings.TANKODROM_NOTIFY_TIMEOUT_S) + 30.0
    with semaphore.held(target_key(target_id), int(settings.TANKODROM_OUTBOUND_PER_TARGET), lease_s) as free:
        if not free:
            raise self.retry(countdown=float(settings.TANKODROM_OUTBOUND_BUSY_S))
        status, retry, attempts = service.attempt(delivery_id)
    if status != DeliveryStatus.PENDING:
        return str(status)
    if retry and attempts <= int(settings.TANKODROM_NOTIFY_RETRIES):
        raise self.retry(countdown=backoff_s(attempts - 1))
    service.give_up(delivery_id)
    log.info("delivery %s failed for good after %s attempts", delivery_id, attempts)
    return str(DeliveryStatus.FAILED)
