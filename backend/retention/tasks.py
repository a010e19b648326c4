"""The retention job as Celery tasks: started by beat once an hour (or from the API), run in bounded steps.

`run_job(job_id)` works for at most STEP_BUDGET_S, then queues itself again, so the worker is never held for long
and the job shows progress between steps. Both tasks are safe to run twice: a job already done does nothing, a
step recorded on the job is finished before a new one begins, and at most one job is active.
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta

from celery import shared_task
from django.db import IntegrityError, transaction
from django.utils import timezone

from backend.clickhouse.client import ClickHouseUnavailable
from backend.retention import service
from backend.retention.models import ACTIVE_STATUSES, RetentionJob

log = logging.getLogger(__name__)

STEP_BUDGET_S = 120.0
# A job that has not moved for this long lost its worker: the next scheduled start resumes it.
STALE_AFTER = timedelta(minutes=30)
RETRY_AFTER_S = 300


def create_job(trigger: str, user_id: int | None = None) -> RetentionJob | None:
    """A new queued job, or None when one is active already."""
    try:
        with transaction.atomic():  # a savepoint: the refusal leaves the caller's transaction usable
            return RetentionJob.objects.create(trigger=trigger, started_by_id=user_id)
    except IntegrityError:
        return None


@shared_task(name="backend.retention.tasks.start_scheduled_job")
def start_scheduled_job() -> int | None:
    """Start a job, or resume the active one if it stalled; returns the job's id."""
    job = create_job("schedule")
    if job is None:
        job = RetentionJob.objects.filter(active=True).first()
        if job is None or job.updated_at > timezone.now() - STALE_AFTER:
            return None
    run_job.delay(int(job.pk))
    return int(job.pk)


@shared_task(name="backend.retention.tasks.run_job")
def run_job(job_id: int) -> str:
    job = RetentionJob.objects.filter(pk=job_id, status__in=ACTIVE_STATUSES).first()
    if job is None:
        return "not active"
    deadline = time.monotonic() + STEP_BUDGET_S
    try:
        service.start(job, timezone.now())
        while True:
            if job.step_test_ids:
                service.finish_step(job)
            if time.monotonic() > deadline:
                run_job.delay(job_id)
                return "continues"
            if not service.begin_step(job):
                break
        service.finish(job)
        return "done"
    except ClickHouseUnavailable as exc:
        # The step stays recorded; the same job goes on when ClickHouse answers again.
        log.warning("retention job %s waits for ClickHouse: %s", job_id, exc)
        job.error = f"waiting for ClickHouse: {exc}"[:2000]
        job.save(update_fields=["error", "updated_at"])
        run_job.apply_async((job_id,), countdown=RETRY_AFTER_S)
        return "retry"
    except Exception as exc:
        service.fail(job, f"{type(exc).__name__}: {exc}")
        raise
