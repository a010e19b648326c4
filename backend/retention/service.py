"""The retention job's steps: which tests are due, marking them expired, deleting their rows.

A test is due when it is finished (ready or failed), older than its policy's days (by `created_at`), not starred
(pinned) and never a baseline. Aggregates go with the raw samples; the test row, its stored figures
(reports.TestFigures), notes and tags stay. Each step takes a bounded batch: marks the tests in PostgreSQL first
(from then on their reports read the per-second histograms, or say the data expired), then deletes the rows and
waits for the mutations. The step is recorded on the job, so a run that dies mid-step is finished by the next.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from backend.clickhouse.queries import retention as ch
from backend.clickhouse.queries import storage
from backend.loadtests import quota
from backend.loadtests.models import Test, TestStatus
from backend.regressions.baselines import ever_baseline_ids
from backend.retention.models import JobStatus, RetentionJob
from backend.retention.policy import policy_groups

log = logging.getLogger(__name__)

RAW = "raw"
AGGREGATES = "aggregates"
FINISHED = (TestStatus.READY, TestStatus.FAILED)


def expirable() -> QuerySet[Test]:
    """Finished tests no one asked to keep: not starred, never a baseline."""
    return Test.objects.filter(status__in=FINISHED, starred=False).exclude(pk__in=ever_baseline_ids())


def due_filter(kind: str, now: datetime) -> Q:
    """Tests whose `kind` of rows (RAW or AGGREGATES) the policy says to delete at `now` and that still have them."""
    q = Q(pk__in=[])
    for group, policy in policy_groups():
        days = policy.raw_after_days if kind == RAW else policy.aggregates_days
        if days is not None:
            q |= group & Q(created_at__lt=now - timedelta(days=days))
    pending = Q(raw_expired_at__isnull=True) if kind == RAW else Q(aggregates_expired_at__isnull=True)
    return q & pending


def due(kind: str, now: datetime) -> QuerySet[Test]:
    return expirable().filter(due_filter(kind, now))


def count_due(now: datetime) -> int:
    return expirable().filter(due_filter(RAW, now) | due_filter(AGGREGATES, now)).count()


def stored_bytes() -> int:
    return sum(u.bytes_on_disk for u in storage.table_usage().values())


def begin_step(job: RetentionJob) -> bool:
    """Pick the next batch of what was due when the job started (aggregates first: they take the raw samples along),
    mark its tests expired and record it on the job. False when nothing is left."""
    batch = int(settings.TANKODROM_RETENTION_BATCH)
    as_of = job.started_at or timezone.now()
    now = timezone.now()
    with transaction.atomic():
        # A step a failed job left half done (its tests marked, their rows maybe not deleted) is taken over first.
        left = RetentionJob.objects.select_for_update().filter(status=JobStatus.FAILED).exclude(step_test_ids=[])
        orphan = left.exclude(pk=job.pk).first()
        if orphan is not None:
            job.step_kind, job.step_test_ids = orphan.step_kind, orphan.step_test_ids
            orphan.step_kind, orphan.step_test_ids = "", []
            orphan.save(update_fields=["step_kind", "step_test_ids", "updated_at"])
            job.save(update_fields=["step_kind", "step_test_ids", "updated_at"])
            return True
        for kind in (AGGREGATES, RAW):
            ids = list(due(kind, as_of).select_for_update().order_by("pk").values_list("pk", flat=True)[:batch])
            if ids:
                break
        else:
            return False
        tests = Test.objects.filter(pk__in=ids)
        tests.filter(raw_expired_at__isnull=True).update(raw_expired_at=now)
        if kind == AGGREGATES:
            tests.filter(aggregates_expired_at__isnull=True).update(aggregates_expired_at=now)
        job.step_kind, job.step_test_ids = kind, [int(i) for i in ids]
        job.save(update_fields=["step_kind", "step_test_ids", "updated_at"])
    return True


def finish_step(job: RetentionJob) -> None:
    """Delete the rows of the job's recorded step and count it done (safe to run again)."""
    ids = [int(i) for i in job.step_test_ids]
    kind = job.step_kind
    ch.delete_raw(ids)
    if kind == AGGREGATES:
        ch.delete_aggregates(ids)
        job.aggregates_expired += len(ids)
    job.raw_expired += len(ids)
    job.tests_done += len(ids)
    job.tests_total = max(job.tests_total, job.tests_done)
    job.step_kind, job.step_test_ids = "", []
    job.save()
    log.info("retention job %s: %s rows of %d tests deleted", job.pk, kind, len(ids))


def start(job: RetentionJob, now: datetime) -> None:
    if job.started_at is None:
        job.started_at = now
        job.tests_total = count_due(now)
        job.bytes_before = stored_bytes()
    job.status = JobStatus.RUNNING
    job.save()


def finish(job: RetentionJob) -> None:
    job.bytes_after = stored_bytes()
    quota.forget_usage()
    job.status, job.active, job.finished_at = JobStatus.DONE, False, timezone.now()
    job.save()


def fail(job: RetentionJob, error: str) -> None:
    job.status, job.active, job.finished_at, job.error = JobStatus.FAILED, False, timezone.now(), error[:2000]
    job.save()
