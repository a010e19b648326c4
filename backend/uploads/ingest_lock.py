"""One ingestion of an upload at a time: a PostgreSQL advisory lock per upload.

Two runs of the same upload at once (the broker redelivers a task still running after its visibility timeout, or
the upload completes while a follow is under way) would delete each other's rows. The server releases the lock if
the worker dies, which is also how backend/uploads/resume.py tells a dead ingestion from a running one.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from django.db import connection

ADVISORY_LOCK_NAMESPACE = 4020  # pg advisory locks are (namespace, id) pairs: this one is "phout ingestion"


@contextlib.contextmanager
def ingestion_lock(upload_id: int) -> Iterator[bool]:
    """Hold the upload's lock if nobody does; yields whether it is held (released on leaving)."""
    with connection.cursor() as cursor:
        locked = _try_lock(cursor, upload_id)
    try:
        yield locked
    finally:
        if locked:
            with connection.cursor() as cursor:
                _unlock(cursor, upload_id)


def ingestion_running(upload_id: int) -> bool:
    """Whether some process ingests this upload now (holds its lock)."""
    with connection.cursor() as cursor:
        locked = _try_lock(cursor, upload_id)
        if locked:
            _unlock(cursor, upload_id)
    return not locked


def _try_lock(cursor: Any, upload_id: int) -> bool:
    cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", [ADVISORY_LOCK_NAMESPACE, upload_id])
    (locked,) = cursor.fetchone() or (False,)
    return bool(locked)


def _unlock(cursor: Any, upload_id: int) -> None:
    cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [ADVISORY_LOCK_NAMESPACE, upload_id])
