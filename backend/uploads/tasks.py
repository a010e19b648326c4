"""Celery task of the uploads app: ingest one stored phout upload (queue `ingest`), by id, idempotently."""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task

from backend.clickhouse.client import ClickHouseUnavailable
from backend.loadtests.models import UploadStatus
from backend.uploads import ingest, resume
from backend.uploads.outcome import fail_upload

log = logging.getLogger(__name__)

MAX_RETRIES = 120  # an hour of ClickHouse outage at 30 s
BUSY_RETRY_S = 2


@shared_task(
    name="backend.uploads.tasks.ingest_upload",
    bind=True,
    max_retries=MAX_RETRIES,
    default_retry_delay=30,
    acks_late=True,
    ignore_result=True,
)
def ingest_upload(self: Any, upload_id: int) -> str:
    """Parse the upload's file into ClickHouse and make it the test's data (see backend/uploads/ingest.py).

    Running it twice is harmless: a finished upload is left alone, an interrupted one starts again from scratch.
    While ClickHouse is unreachable the task retries; the file waits on disk, so nothing accepted is lost.
    """
    try:
        outcome = ingest.ingest_upload(upload_id)
        if outcome == "busy":
            # A follow of this upload (or a redelivered copy of this task) holds it: ask again shortly. If the
            # follow finishes, the upload is done and this returns at once; if it gave up, this ingests.
            raise self.retry(countdown=BUSY_RETRY_S)
        return outcome
    except ClickHouseUnavailable as exc:
        if self.request.retries >= MAX_RETRIES:
            log.error("upload %s: ClickHouse unavailable through every retry, giving up: %s", upload_id, exc)
            fail_upload(
                upload_id,
                f"the sample store stayed unavailable through {MAX_RETRIES} retries: upload the file again",
                only_from=(UploadStatus.PARSING,),
                rows_stored=True,
            )
            return "failed"
        log.warning("upload %s: ClickHouse unavailable, retrying: %s", upload_id, exc)
        raise self.retry(exc=exc) from exc


@shared_task(name="backend.uploads.tasks.follow_upload", ignore_result=True)
def follow_upload(upload_id: int, hashed_by_receiver: bool = False) -> str:
    """Ingest an upload while its body still arrives (receive.py queues it for big, fast transfers).

    `hashed_by_receiver`: the body comes in one piece, whose receiver records its content digest, so the follow does not
    hash it again.

    Not retried: if it cannot finish (ClickHouse down, transfer stalled), the ordinary `ingest_upload` queued at
    completion does the work from the file on disk.
    """
    try:
        return ingest.ingest_upload(upload_id, follow=True, hashed_by_receiver=hashed_by_receiver)
    except ClickHouseUnavailable as exc:
        log.warning("upload %s: not followed, ClickHouse unavailable: %s", upload_id, exc)
        return "abandoned"


@shared_task(name="backend.uploads.tasks.expire_abandoned_uploads", ignore_result=True)
def expire_abandoned_uploads() -> list[int]:
    """Periodic (beat): fail resumable uploads whose client stopped sending long ago (backend/uploads/expire.py),
    then remove upload files no upload in flight owns (backend/uploads/outcome.py)."""
    from backend.uploads.expire import expire_abandoned_uploads as expire
    from backend.uploads.outcome import remove_orphan_files

    expired = expire()
    remove_orphan_files()
    return expired


@shared_task(name="backend.uploads.tasks.resume_stalled_uploads", ignore_result=True)
def resume_stalled_uploads(grace_s: float = resume.STALL_GRACE_S) -> list[int]:
    """Periodic (beat): queue again the ingestions whose worker died (backend/uploads/resume.py)."""
    stalled = resume.stalled_uploads(grace_s)
    for upload_id in stalled:
        ingest_upload.delay(upload_id)
    return stalled
