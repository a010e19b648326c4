"""A real overload on 127.0.0.1: a step test from a pandora-like generator against a small single-worker target.

The run takes about 20 s of wall-clock time (marked slow). The target's capacity is 100 RPS by construction, so
the service must be found to break at the start of the 120 RPS step, 6 s into the schedule; the naive target keeps
working on requests whose clients gave up, so the overload shows timeouts, then discarded requests once all 150
instances are stuck waiting. The phout goes through the real upload path (`PUT /api/v1/tests/<id>/phout`, the
ingest task), then the diagnosis task runs as the post-processing would run it.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, cast

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from backend.diagnosis.models import TestAnalysis
from backend.diagnosis.tasks import diagnose_test
from backend.diagnosis.tests.loadgen import run_step_test
from backend.diagnosis.tests.phout_sim import step_levels
from backend.loadtests.models import Test, TestStatus, UploadStatus

SCHEME = [{"type": "step", "from": 40, "to": 240, "step": 40, "duration": "3s"}]
BREAK_OFFSET_S = 6  # the 120 RPS step: the first above the target's 100 RPS


@pytest.mark.slow
@pytest.mark.django_db
def test_real_step_overload_on_loopback(
    tmp_path: Path,
    owner: User,
    clickhouse: None,
    redis_db: Any,
    owner_api: APIClient,
    settings: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    settings.VAR_DIR = tmp_path / "var"  # uploaded files land here
    phout = tmp_path / "phout.log"
    run = run_step_test(phout, step_levels(40, 240, 40, 3), service_s=0.01, instances=150)
    assert run.timeouts > 0 and run.discarded > 0, run
    first_start = min(float(line.split("\t", 1)[0]) for line in phout.read_text().splitlines())

    test = Test.objects.create(owner=owner, status=TestStatus.READY, loadscheme=SCHEME, instances=0)
    with django_capture_on_commit_callbacks(execute=True):  # the ingest task is queued on commit
        put = owner_api.generic(
            "PUT",
            f"/api/v1/tests/{test.pk}/phout",
            cast(Any, phout.read_bytes()),
            content_type="application/octet-stream",
        )
    assert put.status_code == 202, put.content
    test.refresh_from_db()
    assert test.active_upload is not None and test.active_upload.status == UploadStatus.READY
    diagnose_test(test.pk)

    analysis = TestAnalysis.objects.get(test=test)
    assert analysis.source_id == test.active_upload.pk
    findings = {f["kind"]: f for f in owner_api.get(f"/api/v1/tests/{test.pk}/analysis").json()["findings"]}
    assert set(findings) >= {"imbalance", "timeouts", "discarded", "generator_limited"}, list(findings)
    truth_ts = math.floor(first_start) + BREAK_OFFSET_S
    assert abs(findings["imbalance"]["evidence"]["ts"] - truth_ts) <= 3, (findings["imbalance"]["evidence"], truth_ts)
    assert analysis.imbalance_rps is not None and 120 <= analysis.imbalance_rps <= 160, (findings, first_start)
    assert findings["timeouts"]["evidence"]["count"] == run.timeouts
    assert findings["discarded"]["evidence"]["count"] == run.discarded
    # The service broke first; the generator ran out of instances only afterwards.
    assert findings["generator_limited"]["evidence"]["before_imbalance"] is False
