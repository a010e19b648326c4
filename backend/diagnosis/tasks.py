"""Celery task of the diagnosis: the pipeline's step after the post-processing (backend/core/pipeline.py).

Takes a test id, reads the current data and overwrites the stored analysis: idempotent. ClickHouse being
unreachable is retried; any other failure is stored on the analysis (status failed) so the report can say so.
"""

from __future__ import annotations

from typing import Any

from backend.core import pipeline, pipeline_steps
from backend.diagnosis import service
from backend.loadtests.models import Test


@pipeline_steps.step_task("backend.diagnosis.tasks.diagnose_test", done=pipeline.DIAGNOSED)
def diagnose_test(test: Test) -> dict[str, Any]:
    # Once this returns its KPIs are known (or the analysis failed, which subscribers hear of too) and the pipeline
    # queues what follows.
    analysis = service.run_or_mark_failed(test)
    if analysis is None:
        return {"test": test.pk, "status": "failed"}
    return {"test": test.pk, "status": analysis.status, "findings": [f["kind"] for f in analysis.findings]}
