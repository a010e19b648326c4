"""Celery task of the diagnosis: the pipeline's step after the post-processing (backend/core/pipeline.py).

Takes a test id, reads the current data and overwrites the stored analysis: idempotent. ClickHouse being
unreachable is retried; any other failure is stored on the analysis (status failed) so the report can say so.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task

from backend.clickhouse.client import ClickHouseUnavailable
from backend.core import pipeline
from backend.diagnosis import service
from backend.loadtests.models import Test

log = logging.getLogger(__name__)


@shared_task(
    name="backend.diagnosis.tasks.diagnose_test",
    autoretry_for=(ClickHouseUnavailable,),
    retry_backoff=True,
    max_retries=10,
)
def diagnose_test(test_id: int) -> dict[str, Any]:
    test = Test.objects.filter(pk=test_id).first()
    if test is None:
        log.info("diagnose_test: test %s is gone", test_id)
        return {"test": test_id, "skipped": "deleted"}
    analysis = service.run_or_mark_failed(test)
    # Its KPIs are known now (or the analysis failed, which subscribers hear of too): what follows may run.
    pipeline.after(pipeline.DIAGNOSED, test_id)
    if analysis is None:
        return {"test": test_id, "status": "failed"}
    return {"test": test_id, "status": analysis.status, "findings": [f["kind"] for f in analysis.findings]}
