"""A run of the retention job: what it found to expire, how far it got, what it freed."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class JobStatus(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


ACTIVE_STATUSES = (JobStatus.QUEUED, JobStatus.RUNNING)


class RetentionJob(models.Model):
    """One pass over the tests due for expiry, in steps of a bounded batch.

    `step_kind`/`step_test_ids` is the step in progress: its tests are already marked expired in PostgreSQL (the
    reports read histograms from then on) and their rows are being deleted. A worker that dies mid-step leaves it
    here, and the next run of the job finishes it first (deleting again what is gone is harmless). At most one job
    is active (queued or running) at a time.
    """

    status = models.CharField(max_length=16, choices=JobStatus.choices, default=JobStatus.QUEUED)
    active = models.BooleanField(default=True, help_text="queued or running; at most one job is")
    trigger = models.CharField(max_length=16, default="schedule", help_text="schedule or manual")
    started_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    tests_total = models.IntegerField(default=0, help_text="tests due when the job started")
    tests_done = models.IntegerField(default=0)
    raw_expired = models.IntegerField(default=0, help_text="tests whose raw samples were deleted")
    aggregates_expired = models.IntegerField(default=0, help_text="tests whose per-second rows were deleted")
    bytes_before = models.BigIntegerField(null=True, blank=True, help_text="bytes on disk of the test tables")
    bytes_after = models.BigIntegerField(null=True, blank=True)
    step_kind = models.CharField(max_length=16, blank=True, default="")
    step_test_ids = models.JSONField(default=list, blank=True)
    error = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(fields=["active"], condition=Q(active=True), name="retention_one_active_job")
        ]

    def __str__(self) -> str:
        return f"retention job {self.pk} ({self.status}, {self.tests_done}/{self.tests_total})"
