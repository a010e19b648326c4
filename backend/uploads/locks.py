"""The uploads' PostgreSQL advisory locks: one writer of an upload's file, one ingestion of an upload at a time.

Session locks, not transaction ones: no transaction stays open for the minutes a big piece or an ingestion takes,
and the server releases them when the holder's connection dies. That is also how backend/uploads/resume.py tells
a dead ingestion from a running one.
- WRITING: two requests writing the same piece at once would mix their bytes in the file (receive.py).
- INGESTING: two runs of the same upload at once (the broker redelivers a task still running after its visibility
  timeout, or the upload completes while a follow is under way) would delete each other's rows (ingest.py).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from django.db import connection

# pg advisory locks are (namespace, id) pairs, the id here an upload's.
INGESTING = 4020
WRITING = 4021


@contextlib.contextmanager
def upload_lock(namespace: int, upload_id: int) -> Iterator[bool]:
    """Hold the upload's lock of `namespace` if nobody does; yields whether it is held (released on leaving)."""
    with connection.cursor() as cursor:
        locked = _try_lock(cursor, namespace, upload_id)
    try:
        yield locked
    finally:
        if locked:
            with connection.cursor() as cursor:
                _unlock(cursor, namespace, upload_id)


def ingestion_running(upload_id: int) -> bool:
    """Whether some process ingests this upload now (holds its INGESTING lock)."""
    with connection.cursor() as cursor:
        locked = _try_lock(cursor, INGESTING, upload_id)
        if locked:
            _unlock(cursor, INGESTING, upload_id)
    return not locked


def _try_lock(cursor: Any, namespace: int, upload_id: int) -> bool:
    cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", [namespace, upload_id])
    (locked,) = cursor.fetchone() or (False,)
    return bool(locked)


def _unlock(cursor: Any, namespace: int, upload_id: int) -> None:
    cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [namespace, upload_id])
