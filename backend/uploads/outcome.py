"""The end of an upload that did not become data: failed, its file removed, its test released.

One way for every failure (a body refused at the door, a broken whole-file PUT, an ingestion that failed or gave up,
an abandoned resumable upload): `fail_upload`, so that none of them leaves a test `processing` for ever or a file
on the disk.
A test without data (say `processing`, created to receive an upload) fails with the reason when its last upload in
flight fails; a test with data (an earlier upload, the tank's stream) keeps it and its status. Files under the uploads
directory that no upload in flight owns are removed by `remove_orphan_files` (periodic, with the expiry of abandoned
uploads), so a crash between a failure and its file's removal does not keep the bytes for ever.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from django.db import transaction
from django.utils import timezone

from backend.clickhouse import client
from backend.clickhouse.queries.uploads import delete_upload_rows
from backend.loadtests.models import Test, TestStatus, Upload, UploadStatus
from backend.uploads import formats
from backend.uploads.storage import upload_dir, upload_path

log = logging.getLogger(__name__)

IN_FLIGHT = (UploadStatus.RECEIVING, UploadStatus.PARSING)
# A file younger than this is left alone by the orphan sweep: its upload row may be a moment from committing.
ORPHAN_GRACE_S = 15 * 60
_UPLOAD_FILE = re.compile(r"^(\d+)\.phout$")


def fail_upload(
    upload_id: int,
    error: str,
    *,
    only_from: Iterable[str] = IN_FLIGHT,
    now: datetime | None = None,
    rows_stored: bool = False,
) -> bool:
    """Fail the upload with `error` if it is still in one of `only_from`: its test released, its file removed, and
    the rows its ingestion stored deleted when it ran (`rows_stored`). Whether it failed here (False: it had
    finished or failed meanwhile, and is left as it is)."""
    row = Upload.objects.filter(pk=upload_id).values_list("test_id", "status").first()
    if row is None:
        return False
    test_id, status = row
    if rows_stored and status in (*only_from, UploadStatus.FAILED):  # never the rows of an upload that finished
        forget_rows(test_id, upload_id, "failed upload")
    with transaction.atomic():
        test = Test.objects.select_for_update().get(pk=test_id)  # the test first, as activation.activate locks
        upload = Upload.objects.filter(pk=upload_id, status__in=list(only_from)).first()
        if upload is None:
            return False
        Upload.objects.filter(pk=upload_id).update(
            status=UploadStatus.FAILED, error=error, finished_at=now or timezone.now()
        )
        _release_test(test, upload_id, error)
    remove_file(upload_id, upload.file_path)
    log.info("upload %s failed: %s", upload_id, error)
    return True


def forget_rows(test_id: int, upload_id: int, what: str) -> None:
    """Delete the upload's rows if ClickHouse answers; if not, they stay invisible (the upload is not active)."""
    try:
        delete_upload_rows(test_id, upload_id)
    except client.ClickHouseUnavailable:
        log.warning("could not delete the rows of %s %s (ClickHouse down); they stay invisible", what, upload_id)


def _release_test(test: Test, upload_id: int, error: str) -> None:
    """A test without data fails when its last upload in flight failed; one with data keeps it and its status."""
    if test.active_upload_id is not None or test.has_stream:
        return
    if Upload.objects.filter(test_id=test.pk, status__in=IN_FLIGHT).exclude(pk=upload_id).exists():
        return  # another upload may still bring the data
    test.status = TestStatus.FAILED
    test.error = f"{formats.format_of(upload_id)} upload {upload_id} failed: {error}"
    test.save(update_fields=["status", "error"])


def remove_file(upload_id: int, file_path: str = "") -> None:
    upload_path(upload_id).unlink(missing_ok=True)
    if file_path and file_path != str(upload_path(upload_id)):
        Path(file_path).unlink(missing_ok=True)


def remove_orphan_files(now_s: float | None = None) -> list[int]:
    """Remove the files of uploads that are not in flight (finished, failed, deleted) and were not written for
    ORPHAN_GRACE_S; returns their upload ids. Files of uploads still receiving or parsing are never touched."""
    now_s = time.time() if now_s is None else now_s
    candidates: dict[int, float] = {}
    for entry in upload_dir().iterdir():
        match = _UPLOAD_FILE.match(entry.name)
        if match is None:
            continue
        try:
            written_s = entry.stat().st_mtime
        except FileNotFoundError:
            continue
        if now_s - written_s >= ORPHAN_GRACE_S:
            candidates[int(match.group(1))] = written_s
    if not candidates:
        return []
    in_flight = set(Upload.objects.filter(pk__in=list(candidates), status__in=IN_FLIGHT).values_list("pk", flat=True))
    removed = sorted(set(candidates) - in_flight)
    for upload_id in removed:
        upload_path(upload_id).unlink(missing_ok=True)
    if removed:
        log.info("removed %d orphan upload files: %s", len(removed), removed[:20])
    return removed
