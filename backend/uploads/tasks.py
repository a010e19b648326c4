"""Celery task of the uploads app: ingest one stored phout upload (queue `ingest`), by id, idempotently."""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task

from backend.clickhouse.client import ClickHouseUnavailable
from backend.uploads import ingest

log = logging.getLogger(__name__)

MAX_RETRIES = 120  # an hour of ClickHouse outage at 30 s


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
        return ingest.ingest_upload(upload_id)
    except ClickHouseUnavailable as exc:
        if self.request.retries >= MAX_RETRIES:
            ingest.fail_upload(upload_id, f"storage unavailable, gave up after {MAX_RETRIES} retries: {exc}")
            return "failed"
        log.warning("upload %s: ClickHouse unavailable, retrying: %s", upload_id, exc)
        raise self.retry(exc=exc) from exc
