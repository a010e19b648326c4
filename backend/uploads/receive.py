"""Receiving a phout body: whole in one PUT, or in pieces with `Content-Range` (resumable), always straight to disk.

One upload = one file under VAR_DIR/uploads. A plain PUT carries the whole file. A multi-GB file can be sent as a
series of PUTs with `Content-Range: bytes START-END/TOTAL`: the first (START = 0) creates the upload, the others
name it with `?upload=<id>`; a piece must start where the stored bytes end (the answer to a mismatch says where),
so a client resumes after a broken connection by asking the upload's `received_bytes` and sending from there.
When the last byte is in, the upload is queued for ingestion (`ingest` queue).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import transaction

from backend.loadtests.models import Test, TestStatus, Upload, UploadStatus
from backend.uploads import digest
from backend.uploads.storage import (
    COMMIT_BYTES,
    BodyIncomplete,
    BodyRefused,
    Fillable,
    Readable,
    head_error,
    upload_path,
    write_body,
)

CONTENT_RANGE = re.compile(r"^bytes (\d+)-(\d+)/(\d+)$")


@dataclass
class ReceiveError(Exception):
    status: int
    message: str
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Received:
    upload: Upload
    complete: bool


def parse_content_range(header: str) -> tuple[int, int, int]:
    match = CONTENT_RANGE.match(header.strip())
    if not match:
        raise ReceiveError(400, f"bad Content-Range {header!r}: expected 'bytes START-END/TOTAL'")
    start, end, total = (int(g) for g in match.groups())
    if not start <= end < total:
        raise ReceiveError(400, f"bad Content-Range {header!r}: need START <= END < TOTAL")
    return start, end, total


def receive(
    test: Test, stream: Readable | Fillable, length: int, content_range: str | None, upload_id: str | None
) -> Received:
    """Store this request's bytes; queue the ingestion when the file is complete."""
    if content_range is None:
        if length <= 0:
            raise ReceiveError(400, "empty body: send the phout file as the request body")
        start, end, total = 0, length - 1, length
    else:
        start, end, total = parse_content_range(content_range)
        if end - start + 1 != length:
            raise ReceiveError(400, f"Content-Range covers {end - start + 1} bytes but the body has {length}")
    limit = int(settings.TANKODROM_MAX_UPLOAD_BYTES)
    if total > limit:
        # Pieces pass the middleware one by one: the announced total is checked here.
        raise ReceiveError(
            413, f"a file of {total} bytes exceeds the limit of {limit} bytes (TANKODROM_MAX_UPLOAD_BYTES)"
        )
    upload = _upload_for(test, start, total, upload_id)
    path = upload_path(upload.pk)
    whole = start == 0 and end + 1 == total
    hasher = digest.new_hasher() if whole else None

    def check_head(head: bytes, is_whole: bool) -> None:
        error = head_error(head, is_whole and whole)
        if error:
            raise BodyRefused(error)

    follow = _Follow(upload.pk, total, hashed_here=hasher is not None) if start == 0 else None

    def committed(end_offset: int) -> None:
        # Bytes before end_offset are in the file for good: a broken piece resumes after them, a follow reads them.
        Upload.objects.filter(pk=upload.pk, status=UploadStatus.RECEIVING).update(progress_bytes=end_offset)
        upload.progress_bytes = end_offset
        if follow is not None:
            follow.consider(end_offset)

    try:
        write_body(
            stream,
            path,
            offset=start,
            length=length,
            hasher=hasher,
            check_head=check_head if start == 0 else None,
            on_commit=committed,
        )
    except BodyRefused as exc:
        path.unlink(missing_ok=True)
        Upload.objects.filter(pk=upload.pk).update(status=UploadStatus.FAILED, error=str(exc))
        raise ReceiveError(400, str(exc), {"upload_id": upload.pk}) from exc
    except BodyIncomplete as exc:
        if content_range is None:
            # A whole-file PUT cannot be resumed: nothing of it is kept.
            path.unlink(missing_ok=True)
            Upload.objects.filter(pk=upload.pk).update(status=UploadStatus.FAILED, error=str(exc))
            raise ReceiveError(400, str(exc), {"upload_id": upload.pk}) from exc
        # The bytes committed so far are intact; the client resumes after them.
        received = max(start, upload.progress_bytes)
        raise ReceiveError(400, str(exc), {"upload_id": upload.pk, "received_bytes": received}) from exc
    upload.progress_bytes = end + 1
    upload.file_path = str(path)
    if end + 1 < total:
        upload.save(update_fields=["progress_bytes", "file_path"])
        return Received(upload, complete=False)
    with path.open("r+b") as f:
        f.truncate(total)  # an earlier broken attempt may have written past the end
    upload.content_digest = digest.digest_of(hasher) if hasher is not None else ""
    upload.status = UploadStatus.PARSING
    completed = Upload.objects.filter(pk=upload.pk, status=UploadStatus.RECEIVING).update(
        progress_bytes=upload.progress_bytes,
        file_path=upload.file_path,
        content_digest=upload.content_digest,
        status=upload.status,
    )
    if not completed:
        # A follow judged the file while it arrived (e.g. not phout) and failed the upload: say so.
        failed = Upload.objects.get(pk=upload.pk)
        raise ReceiveError(400, failed.error or f"upload {upload.pk} is {failed.status}", {"upload_id": upload.pk})
    if test.active_upload_id is None and not test.has_stream:
        Test.objects.filter(pk=test.pk).update(status=TestStatus.PROCESSING, error="")
    upload_pk = int(upload.pk)
    transaction.on_commit(lambda: _queue_ingestion(upload_pk))
    return Received(upload, complete=True)


def _upload_for(test: Test, start: int, total: int, upload_id: str | None) -> Upload:
    if start == 0 and not upload_id:
        return Upload.objects.create(test=test, size_bytes=total, status=UploadStatus.RECEIVING)
    if not upload_id or not upload_id.isdigit():
        raise ReceiveError(400, "a piece after the first must name its upload: ?upload=<id> (from the first answer)")
    upload = Upload.objects.filter(pk=int(upload_id), test=test).first()
    if upload is None:
        raise ReceiveError(404, f"upload {upload_id} of test {test.pk} not found")
    if upload.status != UploadStatus.RECEIVING:
        raise ReceiveError(409, f"upload {upload.pk} is already complete ({upload.status})", {"upload_id": upload.pk})
    if upload.size_bytes != total:
        raise ReceiveError(400, f"upload {upload.pk} was announced as {upload.size_bytes} bytes, not {total}")
    if start != upload.progress_bytes:
        raise ReceiveError(
            409,
            f"upload {upload.pk} has {upload.progress_bytes} bytes: the next piece must start there, not at {start}",
            {"upload_id": upload.pk, "received_bytes": upload.progress_bytes},
        )
    return upload


def _queue_ingestion(upload_id: int) -> None:
    from backend.uploads.tasks import ingest_upload

    ingest_upload.delay(upload_id)


# A big body arriving fast is parsed while it arrives (backend/uploads/follow.py): the ingestion of a multi-GB
# file then ends shortly after its last byte instead of starting there. A slow transfer is not followed: the
# worker would mostly wait, and a follow gives up when the waits add up anyway.
FOLLOW_MIN_TOTAL_BYTES = 128 * 1024 * 1024
# Decided at the body's first commit (storage.COMMIT_BYTES; a follow reads committed bytes only), not at its
# second as before: parsing starts 16 MB sooner, ~40 ms at the bench's 400 MB/s, while a core idles.
FOLLOW_AFTER_BYTES = COMMIT_BYTES
FOLLOW_MIN_BYTES_PER_S = 32 * 1024 * 1024


class _Follow:
    """Decides, as the first piece of an upload arrives, whether to start its ingestion right away."""

    def __init__(self, upload_id: int, total_bytes: int, *, hashed_here: bool) -> None:
        self._upload_id = upload_id
        self._hashed_here = hashed_here  # then the follow need not hash what it reads
        self._wanted = total_bytes >= FOLLOW_MIN_TOTAL_BYTES
        self._started_at = time.monotonic()

    def consider(self, received_bytes: int) -> None:
        if not self._wanted or received_bytes < FOLLOW_AFTER_BYTES:
            return
        self._wanted = False  # decided once: now or never for this piece
        elapsed_s = max(time.monotonic() - self._started_at, 1e-3)
        if received_bytes / elapsed_s >= FOLLOW_MIN_BYTES_PER_S:
            from backend.uploads.tasks import follow_upload

            follow_upload.delay(self._upload_id, hashed_by_receiver=self._hashed_here)
