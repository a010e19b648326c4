"""Finishing an upload: it becomes its test's data in one PostgreSQL transaction, or is recognised as the file the
test has already (a failure goes through backend/uploads/outcome.py).

All-or-nothing from the reader's side: every row carries the upload id, and readers see only `Test.active_upload`,
which is switched here after the last row is written. A failed or superseded upload has its rows deleted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils import timezone

from backend.clickhouse.queries.uploads import delete_upload_rows
from backend.loadtests.models import Test, TestStatus, Upload, UploadStatus
from backend.uploads.enqueue import postprocess_after_commit
from backend.uploads.result import IngestResult


def same_file_already_active(upload: Upload) -> Upload | None:
    """The test's active upload, if it holds the same file (same content digest) as this one."""
    active_id = Test.objects.filter(pk=upload.test_id).values_list("active_upload_id", flat=True).first()
    if active_id is None:
        return None
    active = Upload.objects.filter(
        pk=active_id, status=UploadStatus.READY, content_digest=upload.content_digest
    ).first()
    return active


def finish_as_duplicate(upload: Upload, original: Upload, path: Path) -> str:
    Upload.objects.filter(pk=upload.pk).update(
        status=UploadStatus.READY,
        error=f"same file as upload {original.pk}, which is already this test's data: nothing ingested twice",
        progress_bytes=upload.size_bytes,
        lines_total=original.lines_total,
        lines_bad=original.lines_bad,
        bad_examples=original.bad_examples,
        finished_at=timezone.now(),
    )
    path.unlink(missing_ok=True)
    Test.objects.filter(pk=upload.test_id, status=TestStatus.PROCESSING, active_upload_id=original.pk).update(
        status=TestStatus.READY
    )
    return UploadStatus.READY


def activate(upload: Upload, result: IngestResult, path: Path) -> str:
    """Make this upload the test's data, in one transaction; then drop the rows of the one it replaces."""
    stats: dict[str, Any] = {
        "lines_total": result.lines_total,
        "lines_bad": result.lines_bad,
        "bad_examples": result.bad_examples,
        "error": result.note,
        "progress_bytes": upload.size_bytes,
        "finished_at": timezone.now(),
    }
    with transaction.atomic():
        test = Test.objects.select_for_update().get(pk=upload.test_id)
        previous = Upload.objects.filter(pk=test.active_upload_id).first() if test.active_upload_id else None
        if previous is not None and previous.pk > upload.pk:
            # A newer upload finished first: it stays the test's data, this one is superseded at once.
            Upload.objects.filter(pk=upload.pk).update(status=UploadStatus.SUPERSEDED, **stats)
            transaction.on_commit(lambda: delete_upload_rows(int(upload.test_id), int(upload.pk)))
            status: str = UploadStatus.SUPERSEDED
        else:
            Upload.objects.filter(pk=upload.pk).update(status=UploadStatus.READY, **stats)
            test.active_upload_id = upload.pk
            test.first_ts = result.first_ts
            test.last_ts = result.last_ts
            # Ready as soon as its exact data is in: every page answers from the samples and aggregates now.
            # The post-processing queued below only warms the report's cache and runs the diagnosis (the
            # Analysis panel says "pending" meanwhile). A test the tank is still streaming stays online.
            if test.status != TestStatus.ONLINE:
                test.status = TestStatus.READY
            test.error = ""
            # A new upload brings its own samples and per-second rows, whatever retention expired before.
            test.raw_expired_at = test.aggregates_expired_at = None
            test.save(
                update_fields=[
                    "active_upload",
                    "first_ts",
                    "last_ts",
                    "status",
                    "error",
                    "raw_expired_at",
                    "aggregates_expired_at",
                ]
            )
            if previous is not None:
                Upload.objects.filter(pk=previous.pk).update(status=UploadStatus.SUPERSEDED)
                previous_id = int(previous.pk)
                transaction.on_commit(lambda: delete_upload_rows(int(upload.test_id), previous_id))
            postprocess_after_commit(int(test.pk))
            status = UploadStatus.READY
    path.unlink(missing_ok=True)  # the samples are in ClickHouse now
    return status
