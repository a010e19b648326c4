"""The task contract with a real Celery worker: queued as the reports' post-processing queues it after
close/upload (routed to the `analysis` queue by the settings), it is picked up by a worker serving only that
queue and stores the analysis. Marked slow: a worker takes a few seconds to start."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from backend.celery_app import app as celery_app
from backend.diagnosis.models import AnalysisStatus, TestAnalysis
from backend.diagnosis.tasks import diagnose_test
from backend.diagnosis.tests.rows import insert_rows
from backend.diagnosis.tests.test_api import T0, ramp_rows
from backend.loadtests.models import Test, TestStatus
from backend.testing import WorkerProcess, worker_env


@pytest.fixture
def analysis_worker(transactional_db: Any, redis_db: Any, tmp_path: Path) -> Iterator[WorkerProcess]:
    worker = WorkerProcess(env=worker_env(), queues="analysis", log_path=tmp_path / "worker.log")
    worker.start()
    yield worker
    worker.stop()


@pytest.mark.slow
def test_diagnosis_queued_runs_on_the_analysis_queue(
    clickhouse: None, analysis_worker: WorkerProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(celery_app.conf, "task_always_eager", False)
    owner = User.objects.create_user("owner-worker", password="x")
    test = Test.objects.create(
        owner=owner, status=TestStatus.READY, has_stream=True, first_ts=T0, loadscheme=["line(10, 600, 120s)"]
    )
    insert_rows(ramp_rows(test.pk))
    diagnose_test.delay(test.pk)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        analysis = TestAnalysis.objects.filter(test=test).first()
        if analysis is not None and analysis.status == AnalysisStatus.READY:
            break
        time.sleep(0.3)
    else:
        log = analysis_worker.log_path.read_text() if analysis_worker.log_path else ""
        pytest.fail(f"no analysis within 60 s; worker log:\n{log[-3000:]}")
    assert analysis.findings[0]["kind"] == "imbalance"
