"""The end of an upload that did not become data: failed, its file removed, its test released.

One way for every failure (a body refused at the door, a broken whole-file PUT, an ingestion that failed or gave up,
an abandoned resumable upload), so that none of them leaves a test `processing` for ever or a file on the disk.
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

from backend.loadtests.models import Test, TestStatus, Upload, UploadStatus
from backend.uploads import formats
from backend.uploads.storage import upload_dir, upload_path

log = logging.getLogger(__name__)

IN_FLIGHT = (UploadStatus.RECEIVING, UploadStatus.PARSING)
# A file younger than this is left alone by the orphan sweep: its upload row may be a moment from committing.
ORPHAN_GRACE_S = 15 * 60
_UPLOAD_FILE = re.compile(r"^(\d+)\.phout$")


def fail_upload(
    upload_id: int, error: str, *, only_from: Iterable[str] = IN_FLIGHT, now: datetime | None = None
) -> bool:
    """Fail the upload if it is still in one of `only_from`, release its test, remove its file. Whether it failed
    here (False: it had finished or failed meanwhile, and is left as it is)."""
    test_id = Upload.objects.filter(pk=upload_id).values_list("test_id", flat=True).first()
    if test_id is None:
        return False
    with transaction.atomic():
        test = Test.objects.select_for_update().get(pk=test_id)  # the test first, as ingest's _activate locks
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
