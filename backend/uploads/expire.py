"""Giving up on resumable uploads whose client went away for good, so their partial files do not fill the disk.

An upload sent in pieces stays `receiving` between pieces; a client that never comes back would leave it, and
its file, there forever. Its last activity is the later of its creation and its file's last write (every piece
writes the file). After `TANKODROM_UPLOAD_ABANDON_S` without any, the upload fails with a message that says so,
the file is deleted, and a test left with no data at all fails too.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.utils import timezone

from backend.loadtests.models import Upload, UploadStatus
from backend.uploads import outcome
from backend.uploads.storage import upload_path

log = logging.getLogger(__name__)


def _last_activity(upload: Upload) -> datetime:
    path = Path(upload.file_path) if upload.file_path else upload_path(upload.pk)
    try:
        written = datetime.fromtimestamp(path.stat().st_mtime, tz=timezone.get_current_timezone())
    except FileNotFoundError:
        return upload.created_at
    return max(upload.created_at, written)


def expire_abandoned_uploads(now: datetime | None = None) -> list[int]:
    """Fail every `receiving` upload idle for longer than the setting; returns their ids."""
    now = now or timezone.now()
    idle_limit = timedelta(seconds=int(settings.TANKODROM_UPLOAD_ABANDON_S))
    expired: list[int] = []
    for upload in Upload.objects.filter(status=UploadStatus.RECEIVING, created_at__lt=now - idle_limit):
        if now - _last_activity(upload) < idle_limit:
            continue
        error = (
            f"abandoned: no bytes arrived for {idle_limit.total_seconds() / 3600:g} h "
            f"({upload.progress_bytes} of {upload.size_bytes or 'a size not yet known'} received); "
            "upload the file again"
        )
        # Only if it is still receiving: a piece may have completed it since the query above.
        if not outcome.fail_upload(int(upload.pk), error, only_from=(UploadStatus.RECEIVING,), now=now):
            continue
        log.info("upload %s expired: %s", upload.pk, error)
        expired.append(int(upload.pk))
    return expired
