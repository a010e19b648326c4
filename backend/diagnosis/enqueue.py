"""Queueing a test's diagnosis from a request: the row turns pending, then the task is sent once the write commits."""

from __future__ import annotations

from django.db import transaction

from backend.diagnosis import service
from backend.diagnosis.tasks import diagnose_test
from backend.loadtests.models import Test


def request_diagnosis(test: Test) -> None:
    with transaction.atomic():
        service.mark_pending(test)
    test_id = int(test.pk)
    transaction.on_commit(lambda: diagnose_test.delay(test_id))
