"""A real overload on 127.0.0.1: a step test from a pandora-like generator against a small single-worker target.

The run takes about 20 s of wall-clock time (marked slow). The target's capacity is 100 RPS by construction, so
the service must be found to break at the start of the 120 RPS step, 6 s into the schedule; the naive target keeps
working on requests whose clients gave up, so the overload shows timeouts, then discarded requests once all 150
instances are stuck waiting.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from backend.diagnosis.models import TestAnalysis
from backend.diagnosis.tasks import diagnose_test
from backend.diagnosis.tests.loadgen import run_step_test
from backend.diagnosis.tests.phout_sim import step_levels
from backend.diagnosis.tests.rows import ingest_phout
from backend.loadtests.models import Test, TestStatus, Upload, UploadStatus

SCHEME = [{"type": "step", "from": 40, "to": 240, "step": 40, "duration": "3s"}]
BREAK_OFFSET_S = 6  # the 120 RPS step: the first above the target's 100 RPS


@pytest.mark.slow
@pytest.mark.django_db
def test_real_step_overload_on_loopback(tmp_path: Path, owner: User, clickhouse: None, owner_api: APIClient) -> None:
    phout = tmp_path / "phout.log"
    run = run_step_test(phout, step_levels(40, 240, 40, 3), service_s=0.01, instances=150)
    assert run.timeouts > 0 and run.discarded > 0, run
    first_start = min(float(line.split("\t", 1)[0]) for line in phout.read_text().splitlines())

    test = Test.objects.create(owner=owner, status=TestStatus.READY, loadscheme=SCHEME, instances=0)
    upload = Upload.objects.create(test=test, status=UploadStatus.READY, file_path=str(phout))
    Test.objects.filter(pk=test.pk).update(active_upload=upload)
    ingest_phout(phout, test.pk, upload.pk)
    diagnose_test(test.pk)

    analysis = TestAnalysis.objects.get(test=test)
    findings = {f["kind"]: f for f in owner_api.get(f"/api/v1/tests/{test.pk}/analysis").json()["findings"]}
    assert set(findings) >= {"imbalance", "timeouts", "discarded", "generator_limited"}, list(findings)
    truth_ts = math.floor(first_start) + BREAK_OFFSET_S
    assert abs(findings["imbalance"]["evidence"]["ts"] - truth_ts) <= 3, (findings["imbalance"]["evidence"], truth_ts)
    assert analysis.imbalance_rps is not None and 120 <= analysis.imbalance_rps <= 160, (findings, first_start)
    assert findings["timeouts"]["evidence"]["count"] == run.timeouts
    assert findings["discarded"]["evidence"]["count"] == run.discarded
    # The service broke first; the generator ran out of instances only afterwards.
    assert findings["generator_limited"]["evidence"]["before_imbalance"] is False
