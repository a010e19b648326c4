"""Uploads whose ingestion died with its worker (killed -9, out of memory, the machine restarted) are queued again.

A running ingestion holds a PostgreSQL advisory lock (locks.py), which the server releases when the worker's
connection dies. The broker would redeliver the task only after its visibility timeout (an hour with Redis) when
the whole worker died. So a periodic sweep (beat, every minute) looks for uploads `parsing` whose file has not
been written for STALL_GRACE_S and whose lock nobody holds, and queues their ingestion again: it deletes what the
dead attempt stored and starts over, so nothing is doubled. An upload is re-queued at most once per
REQUEUE_EVERY_S, and after MAX_RESUMES it fails with the reason instead: an upload that kills its worker every time
must not do so for ever.
"""

from __future__ import annotations

import logging
import time

from django.core.cache import cache

from backend.loadtests.models import Upload, UploadStatus
from backend.uploads import outcome
from backend.uploads.locks import ingestion_running
from backend.uploads.storage import upload_path

log = logging.getLogger(__name__)

STALL_GRACE_S = 120
REQUEUE_EVERY_S = 600
MAX_RESUMES = 3
_COUNT_TTL_S = 7 * 24 * 3600


def stalled_uploads(grace_s: float = STALL_GRACE_S) -> list[int]:
    """The stalled uploads whose ingestion is to be queued again (see the module docstring); those that stalled
    too often are failed here instead. The caller (the beat task) queues the ones returned."""
    now_s = time.time()
    resumed: list[int] = []
    for upload_id in Upload.objects.filter(status=UploadStatus.PARSING).values_list("pk", flat=True):
        try:
            written_s = upload_path(upload_id).stat().st_mtime
        except FileNotFoundError:
            written_s = 0.0  # the ingestion will say the file is gone
        if now_s - written_s < grace_s or ingestion_running(upload_id):
            continue
        if not cache.add(f"uploads:resumed:{upload_id}", 1, REQUEUE_EVERY_S):
            continue  # queued again not long ago: that task may still wait its turn
        count_key = f"uploads:resume-count:{upload_id}"
        cache.add(count_key, 0, _COUNT_TTL_S)
        if cache.incr(count_key) > MAX_RESUMES:
            outcome.fail_upload(
                upload_id,
                f"the ingestion stopped {MAX_RESUMES} times without finishing (its worker died, e.g. out of memory): "
                "nothing of it was stored",
                only_from=(UploadStatus.PARSING,),
                rows_stored=True,
            )
            continue
        log.warning("upload %s: its ingestion is not running (the worker died?); queued again", upload_id)
        resumed.append(int(upload_id))
    return resumed
