"""Receiving a phout body: whole in one PUT, or in pieces with `Content-Range` (resumable), always straight to disk.

One upload = one file under VAR_DIR/uploads. A plain PUT carries the whole file. A multi-GB file can be sent as a
series of PUTs with `Content-Range: bytes START-END/TOTAL`: the first (START = 0) creates the upload, the others
name it with `?upload=<id>`; a piece must start where the stored bytes end (the answer to a mismatch says where),
so a client resumes after a broken connection by asking the upload's `received_bytes` and sending from there.
When the last byte is in, the upload is queued for ingestion (`ingest` queue).

A file still being written (a generator's results, followed as they grow: `tankodrom follow`) is sent the same way
before its size is known: `bytes START-END/*` (RFC 9110's unknown complete length) until the piece that names the
total, which is the last. Meanwhile the upload's `size_bytes` is 0 (no file of its own is empty).
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction

from analytics.numbers import is_digits
from backend.core.content_range import BadContentRange, ContentRange, parse_content_range
from backend.loadtests.models import Test, TestStatus, Upload, UploadStatus
from backend.uploads import digest, formats, outcome
from backend.uploads.locks import WRITING, upload_lock
from backend.uploads.storage import (
    COMMIT_BYTES,
    BodyIncomplete,
    BodyRefused,
    Fillable,
    Readable,
    upload_path,
    write_body,
)

UNKNOWN_TOTAL = 0  # Upload.size_bytes of an upload whose pieces have not named the file's size yet
log = logging.getLogger(__name__)


@dataclass
class ReceiveError(Exception):
    status: int
    message: str
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Received:
    upload: Upload
    complete: bool


def receive(
    test: Test,
    stream: Readable | Fillable,
    length: int,
    content_range: str | None,
    upload_id: str | None,
    result_format: str = "",
) -> Received:
    """Store this request's bytes; queue the ingestion when the file is complete. `result_format`: the format
    asked for (backend/uploads/formats.py), '' to recognise it from the content."""
    piece = _piece_of(length, content_range)
    limit = int(settings.TANKODROM_MAX_UPLOAD_BYTES)
    if (piece.end + 1 if piece.total is None else piece.total) > limit:
        # Pieces pass the middleware one by one: the announced total (or, while it is not known, the piece's end) is
        # checked here.
        raise ReceiveError(
            413,
            f"a file of {piece.total or piece.end + 1} bytes exceeds the limit of {limit} bytes "
            "(TANKODROM_MAX_UPLOAD_BYTES)",
        )
    upload = _upload_for(test, piece.start, piece.total, upload_id)
    with _writing(upload, piece.start):
        if piece.start == 0:
            formats.remember(upload, result_format)
        return _store(test, upload, stream, piece, whole_request=content_range is None, result_format=result_format)


def _piece_of(length: int, content_range: str | None) -> ContentRange:
    """The bytes of the file this request carries: all of it without a Content-Range."""
    if content_range is None:
        if length <= 0:
            raise ReceiveError(400, "empty body: send the phout file as the request body")
        return ContentRange(0, length - 1, length)
    try:
        piece = parse_content_range(content_range)
    except BadContentRange as exc:
        raise ReceiveError(400, str(exc)) from exc
    if piece.length != length:
        raise ReceiveError(400, f"Content-Range covers {piece.length} bytes but the body has {length}")
    return piece


@contextlib.contextmanager
def _writing(upload: Upload, start: int) -> Iterator[None]:
    """Hold the upload for this request's write (backend/uploads/locks.py, WRITING): the request that does not get
    it is answered 409 before its body is read. Once held, the upload is checked again: the other request may have
    moved it on."""
    with upload_lock(WRITING, upload.pk) as locked:
        if not locked:
            raise ReceiveError(
                409,
                f"another request is writing upload {upload.pk} now: wait for it to end, then ask the upload's "
                "received_bytes and send from there",
                {"upload_id": upload.pk},
            )
        upload.refresh_from_db()
        if upload.status != UploadStatus.RECEIVING:
            raise ReceiveError(
                409, f"upload {upload.pk} is already complete ({upload.status})", {"upload_id": upload.pk}
            )
        if start != upload.progress_bytes:
            have = upload.progress_bytes
            raise ReceiveError(
                409,
                f"upload {upload.pk} has {have} bytes: the next piece must start there, not at {start}",
                {"upload_id": upload.pk, "received_bytes": have},
            )
        yield


def _store(
    test: Test,
    upload: Upload,
    stream: Readable | Fillable,
    piece: ContentRange,
    *,
    whole_request: bool,
    result_format: str,
) -> Received:
    """Write the piece into the upload's file; then record how far the file is, or complete it with its last byte."""
    path = upload_path(upload.pk)
    whole = piece.start == 0 and piece.ends_file
    hasher = digest.new_hasher() if whole else None  # a body in pieces is hashed by its ingestion
    first = piece.start == 0
    follow = _Follow(upload.pk, piece.total, hashed_here=whole) if first and piece.total is not None else None
    with _write_failures(upload, path, piece.start, whole_request=whole_request):
        write_body(
            stream,
            path,
            offset=piece.start,
            length=piece.length,
            hasher=hasher,
            check_head=_head_check(result_format, whole=whole) if first else None,
            on_commit=_Commits(upload, follow),
        )
    upload.progress_bytes = piece.end + 1
    upload.file_path = str(path)
    if piece.total is not None:
        upload.size_bytes = piece.total
    if not piece.ends_file:
        _record_progress(upload)
        return Received(upload, complete=False)
    _complete(test, upload, path, hasher)
    return Received(upload, complete=True)


def _head_check(result_format: str, *, whole: bool) -> Callable[[bytes, bool], None]:
    """storage.write_body's check of the body's first bytes: refused when they are no result file of a known
    format (judged as a whole file only when this request carries all of it)."""

    def check_head(head: bytes, is_whole: bool) -> None:
        error = formats.head_error(head, is_whole and whole, result_format)
        if error:
            raise BodyRefused(error)

    return check_head


class _Commits:
    """storage.write_body's `on_commit`: bytes before `end_offset` are in the file for good (a broken piece resumes
    after them, a follow reads them), so they are recorded as the upload's progress."""

    def __init__(self, upload: Upload, follow: _Follow | None) -> None:
        self._upload = upload
        self._follow = follow

    def __call__(self, end_offset: int) -> None:
        upload = self._upload
        if not Upload.objects.filter(pk=upload.pk, status=UploadStatus.RECEIVING).update(progress_bytes=end_offset):
            # A follow judged what arrived so far and failed the upload: the rest of the body is not read.
            raise BodyRefused(_failure_of(upload.pk))
        upload.progress_bytes = end_offset
        if self._follow is not None:
            self._follow.consider(end_offset)


@contextlib.contextmanager
def _write_failures(upload: Upload, path: Path, start: int, *, whole_request: bool) -> Iterator[None]:
    """The body's write failing, as the answer to the client: a refused body or a broken whole-file PUT fails the
    upload; a broken piece keeps its committed bytes for the client to resume after."""
    try:
        yield
    except BodyRefused as exc:
        outcome.fail_upload(int(upload.pk), str(exc))
        raise ReceiveError(400, _failure_of(upload.pk), {"upload_id": upload.pk}) from exc
    except BodyIncomplete as exc:
        if whole_request:
            # A whole-file PUT cannot be resumed: nothing of it is kept.
            outcome.fail_upload(int(upload.pk), str(exc))
            raise ReceiveError(400, str(exc), {"upload_id": upload.pk}) from exc
        # The bytes committed so far are intact; the client resumes after them.
        received = max(start, upload.progress_bytes)
        raise ReceiveError(400, str(exc), {"upload_id": upload.pk, "received_bytes": received}) from exc
    except OSError as exc:
        raise _storage_error(upload, path, exc, whole_request=whole_request) from exc


def _record_progress(upload: Upload) -> None:
    """Store how far a file in pieces is (and its size, once a piece named it); 400 if it failed meanwhile."""
    if not Upload.objects.filter(pk=upload.pk, status=UploadStatus.RECEIVING).update(
        progress_bytes=upload.progress_bytes, file_path=upload.file_path, size_bytes=upload.size_bytes
    ):
        raise ReceiveError(400, _failure_of(upload.pk), {"upload_id": upload.pk})


def _complete(test: Test, upload: Upload, path: Path, hasher: digest.Hasher | None) -> None:
    """The file's last byte is in: the upload becomes `parsing` and its ingestion is queued once this commits."""
    try:
        with path.open("r+b") as f:
            f.truncate(upload.size_bytes)  # an earlier broken attempt may have written past the end
    except FileNotFoundError:
        pass  # a follow failed the upload and removed its file: the update below finds it failed
    upload.content_digest = digest.digest_of(hasher) if hasher is not None else ""
    upload.status = UploadStatus.PARSING
    completed = Upload.objects.filter(pk=upload.pk, status=UploadStatus.RECEIVING).update(
        size_bytes=upload.size_bytes,
        progress_bytes=upload.progress_bytes,
        file_path=upload.file_path,
        content_digest=upload.content_digest,
        status=upload.status,
    )
    if not completed:
        # A follow judged the file while it arrived (e.g. not phout) and failed the upload: say so.
        outcome.remove_file(int(upload.pk))
        raise ReceiveError(400, _failure_of(upload.pk), {"upload_id": upload.pk})
    if test.active_upload_id is None and not test.has_stream:
        Test.objects.filter(pk=test.pk).update(status=TestStatus.PROCESSING, error="")
    upload_pk = int(upload.pk)
    transaction.on_commit(lambda: _queue_ingestion(upload_pk))


def _failure_of(upload_id: int) -> str:
    failed = Upload.objects.filter(pk=upload_id).values_list("status", "error").first()
    if failed is None:
        return f"upload {upload_id} was deleted"
    status, error = failed
    return str(error) or f"upload {upload_id} is {status}"


# Errors of the file system that say the disk (or the user's quota) is full: the client may try again later.
_NO_SPACE = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


def _storage_error(upload: Upload, path: Path, exc: OSError, *, whole_request: bool) -> ReceiveError:
    """The body could not be written. A whole-file PUT is failed and its file removed; a resumable upload keeps the
    bytes committed before (the rest is cut off, so the space is given back) and may resume once there is room."""
    log.error("upload %s: could not write %s: %s", upload.pk, path, exc)
    full = exc.errno in _NO_SPACE
    reason = "the server's disk is full" if full else "the server could not write the file"
    status = 507 if full else 503
    if whole_request:
        outcome.fail_upload(int(upload.pk), f"{reason}: nothing of the file was kept; upload it again later")
        return ReceiveError(
            status, f"{reason}: nothing of the file was kept; upload it again later", {"upload_id": upload.pk}
        )
    committed = Upload.objects.filter(pk=upload.pk).values_list("progress_bytes", flat=True).first() or 0
    with contextlib.suppress(OSError):
        os.truncate(path, committed)
    return ReceiveError(
        status,
        f"{reason}: the upload keeps its first {committed} bytes; send the rest from there later",
        {"upload_id": upload.pk, "received_bytes": committed},
    )


def _upload_for(test: Test, start: int, total: int | None, upload_id: str | None) -> Upload:
    if start == 0 and not upload_id:
        size = UNKNOWN_TOTAL if total is None else total
        return Upload.objects.create(test=test, size_bytes=size, status=UploadStatus.RECEIVING)
    if not upload_id or not is_digits(upload_id):
        raise ReceiveError(400, "a piece after the first must name its upload: ?upload=<id> (from the first answer)")
    upload = Upload.objects.filter(pk=int(upload_id), test=test).first()
    if upload is None:
        raise ReceiveError(404, f"upload {upload_id} of test {test.pk} not found")
    if upload.size_bytes != UNKNOWN_TOTAL and upload.size_bytes != total:
        announced = "an unknown size ('*')" if total is None else f"{total} bytes"
        raise ReceiveError(400, f"upload {upload.pk} was announced as {upload.size_bytes} bytes, not {announced}")
    return upload  # its status and where the piece starts are checked once it is held (_writing)


def _queue_ingestion(upload_id: int) -> None:
    from backend.uploads.tasks import ingest_upload

    ingest_upload.delay(upload_id)


# A big body arriving fast is parsed while it arrives (backend/uploads/follow.py): the ingestion of a multi-GB
# file then ends shortly after its last byte instead of starting there. A slow transfer is not followed: the
# worker would mostly wait, and a follow gives up when the waits add up anyway.
FOLLOW_MIN_TOTAL_BYTES = 128 * 1024 * 1024
# Decided at the body's first commit (storage.COMMIT_BYTES; a follow reads committed bytes only): parsing starts as
# soon as there is a block to parse, while a core would otherwise idle.
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
