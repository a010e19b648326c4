"""The retention jobs in the admin site: one line each with its progress and what it freed."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from backend.core.admin_types import ModelAdmin
from backend.retention.models import RetentionJob


@admin.register(RetentionJob)
class RetentionJobAdmin(ModelAdmin[RetentionJob]):
    list_display = ["id", "status", "trigger", "progress", "raw_expired", "aggregates_expired", "freed", "created_at"]
    list_filter = ["status", "trigger"]
    readonly_fields = [f.name for f in RetentionJob._meta.fields]

    @admin.display(description="progress")
    def progress(self, job: RetentionJob) -> str:
        return f"{job.tests_done} / {job.tests_total} tests"

    @admin.display(description="freed")
    def freed(self, job: RetentionJob) -> str:
        if job.bytes_before is None or job.bytes_after is None:
            return "—"
        return f"{(job.bytes_before - job.bytes_after) / 1024**2:,.1f} MiB"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
