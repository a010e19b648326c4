"""Component trends and the CI check, over analyses stored in PostgreSQL (and one computed from ClickHouse)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from backend.diagnosis.models import ENGINE_VERSION, AnalysisStatus, TestAnalysis
from backend.diagnosis.tests.rows import insert_rows
from backend.diagnosis.tests.test_api import T0, const_rows, new_test
from backend.loadtests.models import Test, TestStatus
from backend.projects.models import Visibility

pytestmark = pytest.mark.django_db


def history(owner: User, q99: list[float], component: str = "api", **extra: Any) -> list[Test]:
    tests = []
    for i, value in enumerate(q99):
        test = new_test(owner, component=component, first_ts=T0 + i * 3600, **extra)
        TestAnalysis.objects.create(
            test=test,
            status=AnalysisStatus.READY,
            engine_version=ENGINE_VERSION,
            q99_steady_ms=value,
            error_share=0.0,
            findings=[],
        )
        tests.append(test)
    return tests


def values(seed: int, fast: int, slow: int) -> list[float]:
    rng = np.random.default_rng(seed)
    return [float(v) for v in [*rng.normal(100, 2, fast), *rng.normal(180, 2, slow)]]


def test_trend_marks_the_change_and_the_test_that_broke_it(owner: User, owner_api: APIClient) -> None:
    tests = history(owner, values(1, 10, 5))
    history(owner, [500.0] * 3, component="other")  # another component's tests stay out
    body = owner_api.get("/api/v1/components/api/trend?figure=q99").json()
    assert [t["id"] for t in body["tests"]] == [t.pk for t in tests]
    assert [c["test_id"] for c in body["change_points"]] == [tests[10].pk]
    assert [t["id"] for t in body["tests"] if t["broke_trend"]] == [tests[10].pk]
    assert body["thresholds"]["upper"] is not None and body["thresholds"]["baseline"] == pytest.approx(180, abs=5)
    figure = body["figure"]
    assert figure["data"][0]["y"] == pytest.approx([t["value"] for t in body["tests"]])
    assert len(figure["layout"]["shapes"]) == 1


def test_trend_hides_tests_the_user_may_not_read(owner: User, other_api: APIClient) -> None:
    history(owner, [100.0, 101.0])
    history(owner, [102.0], visibility=Visibility.OWNER)
    body = other_api.get("/api/v1/components/api/trend").json()
    assert len(body["tests"]) == 2


def test_unknown_figure_is_a_400(owner_api: APIClient) -> None:
    response = owner_api.get("/api/v1/components/api/trend?figure=p42")
    assert response.status_code == 400
    assert "unknown figure" in response.json()["error"]


def test_check_passes_and_fails_against_the_baseline(owner: User, owner_api: APIClient) -> None:
    tests = history(owner, values(2, 8, 1))
    bad = owner_api.get(f"/api/v1/components/api/check/{tests[-1].pk}").json()
    assert bad["pass"] is False
    assert any("above the threshold" in r for r in bad["reasons"])
    assert bad["figures"]["q99"]["baseline_tests"] == 8
    badge = owner_api.get(f"/api/v1/tests/{tests[-1].pk}/analysis").json()["trend"]
    assert badge["component"] == "api" and badge["broke_trend"] is True and badge["reasons"] == bad["reasons"]
    good = owner_api.get(f"/api/v1/components/api/check/{tests[5].pk}").json()
    assert good["pass"] is True and good["reasons"] == []
    assert good["figures"]["q99"]["baseline_tests"] == 5  # only earlier tests form the baseline


def test_check_without_history_passes_with_a_note(owner: User, owner_api: APIClient) -> None:
    (test,) = history(owner, [100.0])
    body = owner_api.get(f"/api/v1/components/api/check/{test.pk}").json()
    assert body["pass"] is True
    assert any("need 3" in n for n in body["notes"])


def test_check_errors(owner: User, owner_api: APIClient) -> None:
    (test,) = history(owner, [100.0])
    wrong = owner_api.get(f"/api/v1/components/web/check/{test.pk}")
    assert wrong.status_code == 404 and "not a test of component 'web'" in wrong.json()["error"]
    running = new_test(owner, component="api", status=TestStatus.ONLINE)
    busy = owner_api.get(f"/api/v1/components/api/check/{running.pk}")
    assert busy.status_code == 409 and "still online" in busy.json()["error"]
    assert owner_api.get("/api/v1/components/api/check/424242").status_code == 404


def test_check_diagnoses_a_test_not_yet_analysed(owner: User, clickhouse: None, owner_api: APIClient) -> None:
    history(owner, [24.0, 24.5, 23.8, 24.2])
    test = new_test(owner, component="api", first_ts=T0 + 10 * 3600, loadscheme=["const(200, 5m)"])
    insert_rows([(r[0], r[1], r[2] + 10 * 3600, *r[3:]) for r in const_rows(test.pk, q95_ms=60.0)])
    body = owner_api.get(f"/api/v1/components/api/check/{test.pk}").json()
    assert TestAnalysis.objects.get(test=test).status == AnalysisStatus.READY
    assert body["pass"] is False, body
    assert body["figures"]["q99"]["value"] == pytest.approx(60.0 * np.exp(2.326 * 0.05), rel=0.03)


def test_check_of_a_test_whose_diagnosis_crashes_fails_and_says_why(
    owner: User, clickhouse: None, owner_api: APIClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Never a 5xx to a CI job: a diagnosis that crashes on the test's data closes the gate with the reason, once
    (the failure is stored; the next check does not run it again)."""
    from backend.diagnosis import service

    history(owner, [24.0, 24.5, 23.8, 24.2])
    test = new_test(owner, component="api", first_ts=T0 + 10 * 3600, loadscheme=["const(200, 5m)"])
    insert_rows([(r[0], r[1], r[2] + 10 * 3600, *r[3:]) for r in const_rows(test.pk)])
    runs: list[int] = []

    def crash(test: Test) -> TestAnalysis:
        runs.append(int(test.pk))
        raise ValueError("boom")

    monkeypatch.setattr(service, "run", crash)
    for _ in range(2):
        response = owner_api.get(f"/api/v1/components/api/check/{test.pk}")
        assert response.status_code == 200, response.content
        body = response.json()
        assert body["pass"] is False
        assert body["reasons"] == [
            f"the diagnosis of test {test.pk} failed (ValueError: boom): it cannot be judged against its "
            "component's trend"
        ]
    assert runs == [test.pk]
    assert TestAnalysis.objects.get(test=test).status == AnalysisStatus.FAILED
