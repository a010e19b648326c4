"""The retention answers' shapes (the OpenAPI schema and the answer-schema tests read them)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from backend.core.fields import ErrorSerializer
from backend.retention.models import RetentionJob

__all__ = ["ErrorSerializer"]  # the API's one error shape, re-exported for this app's views


class RetentionPolicySerializer(serializers.Serializer[Any]):
    raw_days = serializers.IntegerField(
        allow_null=True, help_text="raw samples deleted this many days after; null: kept"
    )
    aggregates_days = serializers.IntegerField(
        allow_null=True, help_text="per-second aggregates and monitoring deleted this many days after; null: kept"
    )


class RetentionJobSerializer(serializers.ModelSerializer[RetentionJob]):
    started_by = serializers.CharField(source="started_by.username", allow_null=True, read_only=True, default=None)
    progress = serializers.SerializerMethodField(help_text="tests done / tests due when the job started, 0..1")
    bytes_freed = serializers.SerializerMethodField(help_text="bytes on disk before minus after (null until done)")

    class Meta:
        model = RetentionJob
        fields = (
            "id",
            "status",
            "trigger",
            "started_by",
            "created_at",
            "started_at",
            "updated_at",
            "finished_at",
            "tests_total",
            "tests_done",
            "progress",
            "raw_expired",
            "aggregates_expired",
            "bytes_before",
            "bytes_after",
            "bytes_freed",
            "error",
        )
        read_only_fields = fields

    def get_progress(self, job: RetentionJob) -> float:
        if job.tests_total <= 0:
            return 1.0 if job.status == "done" else 0.0
        return min(1.0, job.tests_done / job.tests_total)

    def get_bytes_freed(self, job: RetentionJob) -> int | None:
        if job.bytes_before is None or job.bytes_after is None:
            return None
        return int(job.bytes_before - job.bytes_after)


class RetentionJobsSerializer(serializers.Serializer[Any]):
    policy = RetentionPolicySerializer()
    jobs = RetentionJobSerializer(many=True)


class StorageRowsSerializer(serializers.Serializer[Any]):
    raw = serializers.IntegerField(help_text="raw samples")
    aggregates = serializers.IntegerField(help_text="per-second, per-case rows")
    monitoring = serializers.IntegerField(help_text="monitoring points")


class TestStorageSerializer(serializers.Serializer[Any]):
    test = serializers.IntegerField()
    rows = StorageRowsSerializer()
    bytes_on_disk = serializers.IntegerField(help_text="estimated: its rows times its tables' bytes per row")
    raw_expired_at = serializers.DateTimeField(allow_null=True)
    aggregates_expired_at = serializers.DateTimeField(allow_null=True)


class TableStorageSerializer(serializers.Serializer[Any]):
    table = serializers.ChoiceField(choices=["raw", "aggregates", "monitoring"])
    rows = serializers.IntegerField()
    bytes_on_disk = serializers.IntegerField(help_text="active parts in system.parts")


class StorageLargestTestSerializer(serializers.Serializer[Any]):
    test = serializers.IntegerField()
    name = serializers.CharField(allow_blank=True)
    component = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()
    rows = StorageRowsSerializer()
    bytes_on_disk = serializers.IntegerField()


class StorageRateSerializer(serializers.Serializer[Any]):
    window_days = serializers.IntegerField()
    bytes_per_day = serializers.IntegerField(help_text="bytes of the tests created in the window, per day")


class StorageProjectedSerializer(serializers.Serializer[Any]):
    days = serializers.IntegerField()
    bytes_on_disk = serializers.IntegerField(help_text="today's bytes plus the rate times the days")


class StorageQuotaSerializer(serializers.Serializer[Any]):
    name = serializers.CharField()
    limit_bytes = serializers.IntegerField(allow_null=True, help_text="null: no quota")
    used_share = serializers.FloatField(allow_null=True)


class StorageSerializer(serializers.Serializer[Any]):
    tables = TableStorageSerializer(many=True)
    total_bytes = serializers.IntegerField()
    tests_with_rows = serializers.IntegerField()
    largest = StorageLargestTestSerializer(many=True)
    rate = StorageRateSerializer()
    projected = StorageProjectedSerializer(many=True)
    quota = StorageQuotaSerializer()
    policy = RetentionPolicySerializer()


class ArchiveImportedSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField(help_text="the new test")
    url = serializers.CharField(help_text="its report's path")


class MonitoringLogStoredSerializer(serializers.Serializer[Any]):
    test = serializers.IntegerField()
    points = serializers.IntegerField(help_text="monitoring points stored (a point sent twice is stored once)")
