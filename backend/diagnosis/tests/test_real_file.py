"""A pandora-like step test that overloads a small service, from the phout file to the findings.

The file is written by `phout_sim` (timeouts with net 110 and sentinels, discarded rows with net 777, lines in
completion order), parsed and aggregated by the project's own phout parser and aggregator, stored as an upload's
per-second rows, and diagnosed by the Celery task with the pandora dict scheme the tank would have sent.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from backend.diagnosis.models import TestAnalysis
from backend.diagnosis.tasks import diagnose_test
from backend.diagnosis.tests.phout_sim import step_levels, write_phout
from backend.diagnosis.tests.rows import ingest_phout
from backend.loadtests.models import Test, TestStatus, Upload, UploadStatus

T0 = 1_795_316_000
SCHEME = [{"type": "step", "from": 50, "to": 500, "step": 50, "duration": "10s"}]
CAPACITY_RPS = 260.0  # between the 250 and 300 RPS steps: the break is at the start of the 300 step, 50 s in


@pytest.mark.django_db
def test_pandora_step_overload(tmp_path: Path, owner: User, clickhouse: None, owner_api: APIClient) -> None:
    sim = write_phout(
        tmp_path / "phout.log",
        t0=float(T0),
        planned_per_second=step_levels(50, 500, 50, 10),
        capacity_rps=CAPACITY_RPS,
        instances=400,
    )
    assert sim.timeouts > 1000 and sim.discarded > 100  # the file shows what a real overload shows

    test = Test.objects.create(owner=owner, status=TestStatus.READY, loadscheme=SCHEME, instances=0)
    upload = Upload.objects.create(test=test, status=UploadStatus.READY, file_path=str(sim.path))
    Test.objects.filter(pk=test.pk).update(active_upload=upload)
    test.refresh_from_db()
    assert ingest_phout(sim.path, test.pk, upload.pk) > 100

    diagnose_test(test.pk)
    analysis = TestAnalysis.objects.get(test=test)
    assert analysis.source_id == upload.pk
    findings = {f["kind"]: f for f in owner_api.get(f"/api/v1/tests/{test.pk}/analysis").json()["findings"]}
    assert set(findings) >= {"imbalance", "generator_limited", "timeouts", "discarded"}

    imbalance = findings["imbalance"]
    assert abs(imbalance["evidence"]["ts"] - (T0 + 50)) <= 3, imbalance["evidence"]
    assert analysis.imbalance_rps == 300.0
    assert imbalance["annotations"] == [{"ts": imbalance["evidence"]["ts"], "label": "imbalance 300 RPS"}]

    # The generator ran out of instances only later (at the 500 RPS step): the service broke first.
    limited = findings["generator_limited"]
    assert limited["evidence"]["reason"] == "discarded"
    assert limited["evidence"]["before_imbalance"] is False
    assert abs(limited["evidence"]["ts"] - (T0 + 90)) <= 3
    assert "limited by the generator from" in limited["text"]

    assert findings["timeouts"]["evidence"]["count"] == sim.timeouts
    assert findings["discarded"]["evidence"]["count"] == sim.discarded
    # The steady figure is taken before the break: the service's own times, not the overload's.
    assert analysis.q99_steady_ms is not None and analysis.q99_steady_ms < 20
