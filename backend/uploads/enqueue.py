"""The work of other apps an upload's ingestion queues; this module only enqueues (tasks are called by import)."""

from __future__ import annotations

from django.db import transaction

from backend.reports.tasks import postprocess_test


def postprocess_after_commit(test_id: int) -> None:
    """Queue the test's post-processing (report cache, diagnosis) once the current transaction commits."""
    transaction.on_commit(lambda: postprocess_test.delay(test_id))
