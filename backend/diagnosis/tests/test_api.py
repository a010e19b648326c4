"""The diagnosis end to end on the real stores: rows in ClickHouse, the Celery task, the stored analysis, the API."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from backend.diagnosis.models import ENGINE_VERSION, AnalysisStatus, TestAnalysis
from backend.diagnosis.tasks import diagnose_test
from backend.diagnosis.tests.rows import insert_monitoring, insert_rows, overall_row
from backend.loadtests.models import Test, TestStatus
from backend.projects.models import Visibility

T0 = 1_795_316_000
pytestmark = pytest.mark.django_db


def ramp_rows(test_id: int, *, capacity: float = 300.0, seconds: int = 120, received_at_us: int = 1) -> list[Any]:
    """A streamed line(10, 600, 120s): keeps up below `capacity`, then falls behind with timeouts."""
    rows = []
    rng = np.random.default_rng(0)
    for i in range(seconds):
        planned = 10 + 590 * (i + 0.5) / seconds
        answered = min(planned, capacity)
        over = planned > capacity
        rows.append(
            overall_row(
                test_id,
                0,
                T0 + i,
                resps=round(planned),
                reqps=planned,
                threads=int(min(planned * 0.02, 50)) if not over else 200,
                q95_ms=(1000.0 if over else 20.0 * float(rng.lognormal(0, 0.05))),
                timeouts=round(planned - answered),
                received_at_us=received_at_us,
            )
        )
    return rows


def const_rows(
    test_id: int, *, rps: float = 200.0, seconds: int = 300, q95_ms: float = 20.0, seed: int = 1
) -> list[Any]:
    rng = np.random.default_rng(seed)
    return [
        overall_row(
            test_id,
            0,
            T0 + i,
            resps=int(rng.poisson(rps)),
            reqps=rps,
            threads=5,
            q95_ms=q95_ms * float(rng.lognormal(0, 0.05)),
        )
        for i in range(seconds)
    ]


def new_test(owner: User, **fields: Any) -> Test:
    defaults: dict[str, Any] = {"status": TestStatus.READY, "has_stream": True, "first_ts": T0}
    return Test.objects.create(owner=owner, **{**defaults, **fields})


def test_task_finds_the_imbalance_of_a_streamed_ramp(owner: User, clickhouse: None, owner_api: APIClient) -> None:
    test = new_test(owner, loadscheme=["line(10, 600, 120s)"], instances=200)
    # The same seconds pushed twice (the tank retries): FINAL must count them once.
    insert_rows(ramp_rows(test.pk, received_at_us=1))
    insert_rows(ramp_rows(test.pk, received_at_us=2))
    outcome = diagnose_test(test.pk)
    assert outcome["status"] == "ready"
    analysis = TestAnalysis.objects.get(test=test)
    assert analysis.seconds == 120
    truth = int(np.argmax([10 + 590 * (i + 0.5) / 120 > 300 for i in range(120)]))
    assert analysis.imbalance_ts is not None and abs(analysis.imbalance_ts - (T0 + truth)) <= 3
    assert analysis.imbalance_rps is not None and 290 <= analysis.imbalance_rps <= 320

    body = owner_api.get(f"/api/v1/tests/{test.pk}/analysis").json()
    assert body["status"] == "ready"
    kinds = [f["kind"] for f in body["findings"]]
    assert kinds[0] == "imbalance"
    assert "generator_limited" in kinds  # 200 instances all busy while falling behind
    assert "timeouts" in kinds
    imbalance = body["findings"][0]
    assert set(imbalance) == {"kind", "severity", "title", "text", "evidence", "facts", "annotations"}
    assert imbalance["annotations"][0]["ts"] == analysis.imbalance_ts
    assert imbalance["evidence"]["planned_rps"] == pytest.approx(analysis.imbalance_rps, abs=1)
    # Running it again changes nothing.
    diagnose_test(test.pk)
    assert TestAnalysis.objects.get(test=test).findings == analysis.findings


def test_healthy_constant_test_has_no_findings(owner: User, clickhouse: None, owner_api: APIClient) -> None:
    test = new_test(owner, loadscheme=["const(200, 5m)"], instances=50)
    insert_rows(const_rows(test.pk))
    diagnose_test(test.pk)
    body = owner_api.get(f"/api/v1/tests/{test.pk}/analysis").json()
    assert body["status"] == "ready"
    assert body["findings"] == []
    # These rows put each second's answers in one histogram bin at its q95 (20 ms × lognormal(0, 0.05)), so the
    # q99 of the merged steady-stage histogram is the 99th percentile of those: 20 × e^(2.326 × 0.05).
    assert body["trend_figures"]["q99"] == pytest.approx(20.0 * np.exp(2.326 * 0.05), rel=0.03)
    assert body["steady_stage"] == {"from_ts": T0, "to_ts": T0 + 300}
    assert body["trend_figures"]["imbalance_rps"] is None
    assert body["trend_figures"]["error_share"] == 0.0
    assert body["trend"] is None  # no component, no trend badge


def test_monitoring_single_core_through_the_store(owner: User, clickhouse: None, owner_api: APIClient) -> None:
    test = new_test(owner, loadscheme=["const(200, 5m)"])
    insert_rows(const_rows(test.pk))
    ts = [T0 + i for i in range(300)]
    insert_monitoring(
        test.pk,
        "target",
        ts,
        {
            "custom:cpu-cpu0_usage_idle": [10.0 + (i % 3) for i in range(300)],
            "custom:cpu-cpu1_usage_idle": [95.0] * 300,
            "custom:cpu-cpu2_usage_idle": [92.0] * 300,
            "Memory_used": [1e9] * 300,
            "System_la1": [9.0] * 300,  # not read: filtered out in ClickHouse
        },
    )
    diagnose_test(test.pk)
    body = owner_api.get(f"/api/v1/tests/{test.pk}/analysis").json()
    assert [f["kind"] for f in body["findings"]] == ["single_core"]
    assert body["findings"][0]["evidence"]["core"] == 0


def test_analysis_is_queued_once_and_pending_until_done(
    owner: User, clickhouse: None, owner_api: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    test = new_test(owner, loadscheme=["const(200, 5m)"])
    insert_rows(const_rows(test.pk))
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        first = owner_api.get(f"/api/v1/tests/{test.pk}/analysis").json()
        second = owner_api.get(f"/api/v1/tests/{test.pk}/analysis").json()
    assert first == {"status": "pending", "findings": [], "figures": {}}
    assert second["status"] == "pending"
    assert len(callbacks) == 1  # the second poll did not queue it again
    callbacks[0]()  # the task runs (eagerly in the test settings)
    assert owner_api.get(f"/api/v1/tests/{test.pk}/analysis").json()["status"] == "ready"


def test_a_failed_diagnosis_is_the_answer_until_the_data_changes(
    owner: User,
    clickhouse: None,
    owner_api: APIClient,
    django_capture_on_commit_callbacks: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A diagnosis that crashes on a test's data is not queued again on every read of its report (it would crash
    again, and the page would say `pending` for ever): it answers `failed` with the error; a new upload retries."""
    from backend.diagnosis import service

    test = new_test(owner, loadscheme=["const(200, 5m)"])
    insert_rows(const_rows(test.pk))

    def crash(test: Test) -> TestAnalysis:
        raise ValueError("no seconds")

    monkeypatch.setattr(service, "run", crash)
    url = f"/api/v1/tests/{test.pk}/analysis"
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        assert owner_api.get(url).json()["status"] == "pending"
    assert len(callbacks) == 1
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        for _ in range(3):
            assert owner_api.get(url).json() == {
                "status": "failed",
                "error": "ValueError: no seconds",
                "findings": [],
                "figures": {},
            }
    assert callbacks == []  # read three times, queued no more
    failed_on = TestAnalysis.objects.get(test=test).source_id
    monkeypatch.setattr(service, "source_id_of", lambda test: failed_on + 1)  # a new upload's data
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert owner_api.get(url).json()["status"] == "pending"
    assert len(callbacks) == 1


def test_a_stream_spanning_years_is_not_diagnosed_but_said_so(
    owner: User, clickhouse: None, owner_api: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    """A tank whose clock jumped (or a hostile one) streams seconds years apart: the engine's per-second series
    would be that long (10^8 seconds here, gigabytes). The analysis fails naming the limit instead."""
    test = new_test(owner)
    insert_rows([overall_row(test.pk, 0, 1_600_000_000, resps=10), overall_row(test.pk, 0, 1_700_000_000, resps=10)])
    with django_capture_on_commit_callbacks(execute=True):
        owner_api.get(f"/api/v1/tests/{test.pk}/analysis")
    answer = owner_api.get(f"/api/v1/tests/{test.pk}/analysis").json()
    assert answer["status"] == "failed", answer
    assert answer["error"].endswith("more than a test may last (31 days): not diagnosed"), answer


@pytest.mark.parametrize("status", [TestStatus.ONLINE, TestStatus.PROCESSING])
def test_unfinished_test_is_pending_without_queueing(owner: User, owner_api: APIClient, status: str) -> None:
    test = new_test(owner, status=status)
    body = owner_api.get(f"/api/v1/tests/{test.pk}/analysis").json()
    assert body["status"] == "pending"
    assert not TestAnalysis.objects.filter(test=test).exists()


def test_stale_analysis_after_a_new_upload_is_not_served(owner: User, clickhouse: None, owner_api: APIClient) -> None:
    test = new_test(owner)
    TestAnalysis.objects.create(
        test=test, status=AnalysisStatus.READY, engine_version=ENGINE_VERSION, source_id=99, findings=[{"kind": "x"}]
    )
    body = owner_api.get(f"/api/v1/tests/{test.pk}/analysis").json()
    assert body == {"status": "pending", "findings": [], "figures": {}}
    assert TestAnalysis.objects.get(test=test).status == AnalysisStatus.PENDING


def test_unreadable_scheme_is_a_finding_not_a_failure(owner: User, clickhouse: None, owner_api: APIClient) -> None:
    # A scheme the engine cannot read leaves the rest of the diagnosis standing.
    test = new_test(owner, loadscheme=["wave(1, 2, 3s)"])
    insert_rows(const_rows(test.pk))
    diagnose_test(test.pk)
    body = owner_api.get(f"/api/v1/tests/{test.pk}/analysis").json()
    assert body["status"] == "ready"
    assert [f["kind"] for f in body["findings"]] == ["load_scheme"]


def test_access(owner: User, other_api: APIClient, anon_api: APIClient) -> None:
    public = new_test(owner)
    private = new_test(owner, visibility=Visibility.OWNER)
    assert anon_api.get(f"/api/v1/tests/{public.pk}/analysis").status_code == 200
    missing = other_api.get(f"/api/v1/tests/{private.pk}/analysis")
    assert missing.status_code == 404 and "not found" in missing.json()["error"]
    assert anon_api.get(f"/api/v1/tests/{private.pk}/analysis").status_code == 404  # as a missing test
    assert other_api.get("/api/v1/tests/999999/analysis").status_code == 404


def test_deleted_test_is_skipped() -> None:
    assert diagnose_test(987654) == {"test": 987654, "skipped": "deleted"}


def test_upload_takes_planned_rps_and_instances_from_the_stream(owner: User, clickhouse: None) -> None:
    # The tank streamed the test (planned RPS, busy instances) and its phout was uploaded afterwards: the upload's
    # rows are the exact figures, the stream says what the generator planned and had busy.
    from backend.loadtests.models import Upload, UploadStatus

    test = new_test(owner, loadscheme=[], instances=200)
    upload = Upload.objects.create(test=test, status=UploadStatus.READY)
    Test.objects.filter(pk=test.pk).update(active_upload=upload)
    test.refresh_from_db()
    stream = ramp_rows(test.pk)
    insert_rows(stream)
    # The upload's rows: the same answers, no planned rate, no instances (a phout has neither).
    insert_rows([(r[0], upload.pk, r[2], r[3], 0.0, 0, *r[6:]) for r in stream])
    diagnose_test(test.pk)
    analysis = TestAnalysis.objects.get(test=test)
    assert analysis.source_id == upload.pk
    kinds = [f["kind"] for f in analysis.findings]
    assert kinds[:2] == ["imbalance", "generator_limited"]
    assert analysis.findings[1]["evidence"]["reason"] == "instances_at_max"
