"""Ingestion of one upload into ClickHouse, from its stored file or while its body still arrives (a follow).

Each run holds the upload's lock (backend/uploads/locks.py), loads the file (backend/uploads/load.py) and makes
it the test's data (backend/uploads/activation.py). Re-running an upload (a retried task) first deletes what an
earlier attempt left behind, so the task is idempotent. The same file (same content digest,
backend/uploads/digest.py) uploaded again into the same test is recognised and not ingested twice.
"""

from __future__ import annotations

import contextlib
import io
import logging
from collections.abc import Iterator
from pathlib import Path

from django.db import connection

from backend.clickhouse import client
from backend.clickhouse.queries.uploads import delete_upload_rows
from backend.fastpaths.direct_io import ReadAhead
from backend.loadtests.models import Upload, UploadStatus
from backend.uploads.activation import activate, finish_as_duplicate, same_file_already_active
from backend.uploads.digest import digest_of_file
from backend.uploads.follow import Abandoned, GrowingFile
from backend.uploads.load import load
from backend.uploads.locks import INGESTING, upload_lock
from backend.uploads.outcome import fail_upload, forget_rows
from backend.uploads.result import IngestError
from backend.uploads.storage import open_stored, upload_path

log = logging.getLogger(__name__)

READ_BUFFER_BYTES = 1024 * 1024


def ingest_upload(upload_id: int, *, follow: bool = False, hashed_by_receiver: bool = False) -> str:
    """Ingest one upload; returns its final status, or "busy" when another run holds it (it is left to that one).

    With `follow`, an upload still arriving is read as it grows (backend/uploads/follow.py), and hashed on the
    way unless `hashed_by_receiver`.
    """
    with upload_lock(INGESTING, upload_id) as locked:
        if not locked:
            return "busy"
        if follow:
            return _ingest_following(upload_id, hashed_by_receiver)
        return _ingest_stored(upload_id)


def internal_error(upload_id: int) -> str:
    """What the uploader is told of a failure that is not the file's: never the exception's own text (it may hold
    SQL, paths or a driver's internals); the server's log has it, under the upload's id."""
    return (
        f"internal error while ingesting upload {upload_id}: nothing of it was stored; the server's log has the "
        "details. Upload the file again, or tell the administrator if it fails again"
    )


class _Failed(Exception):
    """The upload failed (and was marked so) inside `_failing_on_errors`."""


@contextlib.contextmanager
def _failing_on_errors(upload: Upload, doing: str, passing: tuple[type[Exception], ...] = ()) -> Iterator[None]:
    """Fail the upload on an error of its own (IngestError: the file) or an unexpected one (logged, an internal
    error for the uploader). ClickHouse being unavailable, and the `passing` errors, are left to the caller."""
    try:
        yield
    except IngestError as exc:
        fail_upload(int(upload.pk), str(exc), rows_stored=True)  # the file is the problem: removed with the failure
        raise _Failed from exc
    except client.ClickHouseUnavailable:
        raise
    except passing:
        raise
    except Exception as exc:
        log.exception("%s upload %s failed", doing, upload.pk)
        fail_upload(int(upload.pk), internal_error(int(upload.pk)), rows_stored=True)
        raise _Failed from exc


def _ingest_stored(upload_id: int) -> str:
    upload = Upload.objects.select_related("test").filter(pk=upload_id).first()
    if upload is None:
        return "missing"
    if upload.status != UploadStatus.PARSING:
        return str(upload.status)  # not complete yet, or already finished: nothing to do
    path = Path(upload.file_path)
    try:
        # ClickHouseUnavailable goes up: the task retries later; the upload stays `parsing` and the next attempt
        # starts clean.
        with _failing_on_errors(upload, "ingestion of"):
            if not path.is_file():
                raise IngestError("the uploaded file is no longer on the server; upload it again")
            if not upload.content_digest:
                upload.content_digest = digest_of_file(path)
                upload.save(update_fields=["content_digest"])
            original = same_file_already_active(upload)
            if original is not None:
                return finish_as_duplicate(upload, original, path)
            delete_upload_rows(upload.test_id, upload.pk)  # what a crashed earlier attempt may have left
            with open_stored(path) as raw:
                result = load(upload, raw)
            return activate(upload, result, path)
    except _Failed:
        return UploadStatus.FAILED


def _ingest_following(upload_id: int, hashed_by_receiver: bool) -> str:
    """Ingest an upload whose body is still arriving; "abandoned" leaves it to the ordinary ingestion."""
    upload = Upload.objects.select_related("test").filter(pk=upload_id).first()
    if upload is None or upload.status not in (UploadStatus.RECEIVING, UploadStatus.PARSING):
        return "missing" if upload is None else str(upload.status)
    path = upload_path(upload.pk)
    try:
        # IngestError: the receiver sees the failure and refuses the rest of the body. ClickHouseUnavailable goes
        # up: not the upload's fault, the ordinary ingestion retries it, deleting what this left first.
        with _failing_on_errors(upload, "following", passing=(Abandoned, FileNotFoundError)):
            delete_upload_rows(upload.test_id, upload.pk)
            growing = GrowingFile(path, upload.pk, upload.size_bytes, hashing=not hashed_by_receiver)
            # Read ahead in a thread (which also hashes, unless the receiver does): it waits for the transfer while
            # this one parses. Its waits query PostgreSQL, on a connection of its own, closed as it ends.
            ahead = ReadAhead(growing, thread_exit=lambda: connection.close())  # looked up on the reading thread
            with io.BufferedReader(ahead, READ_BUFFER_BYTES) as raw:
                result = load(upload, raw)
            read_digest = growing.digest
            upload.refresh_from_db()
            changed = read_digest and upload.content_digest and upload.content_digest != read_digest
            if upload.status != UploadStatus.PARSING or changed:
                raise Abandoned(f"the upload changed while it was read ({upload.status})")
            if not upload.content_digest:
                upload.content_digest = read_digest or digest_of_file(path)
                upload.save(update_fields=["content_digest"])
            original = same_file_already_active(upload)
            if original is not None:
                delete_upload_rows(int(upload.test_id), int(upload.pk))
                return finish_as_duplicate(upload, original, path)
            return activate(upload, result, path)
    except (Abandoned, FileNotFoundError) as exc:
        log.info("stopped following upload %s: %s", upload_id, exc)
        forget_rows(int(upload.test_id), int(upload.pk), "the abandoned follow of upload")
        return "abandoned"
    except _Failed:
        return UploadStatus.FAILED
