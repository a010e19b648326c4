"""A component's dashboard reads its tests' figures in a fixed number of queries whatever their count, and computes
the change points of a KPI once per set of values."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from analytics.diagnosis import changepoint
from backend.diagnosis.models import TestAnalysis
from backend.loadtests.models import Test, TestStatus
from backend.regressions import service
from backend.sharing.tests.rows import START_TS, insert_seconds


def _add_tests(owner: User, count: int, first: int) -> None:
    for n in range(first, first + count):
        test = Test.objects.create(
            owner=owner, name=f"run {n}", component="scale", status=TestStatus.READY, has_stream=True
        )
        start = START_TS + n * 1000
        insert_seconds(test.pk, 0, 5, fast_ms=20 + 30 * (n >= 8), slow_ms=300, fast=90, slow=5, start_ts=start)
        Test.objects.filter(pk=test.pk).update(first_ts=start, last_ts=start + 4)


def _queries(api: APIClient) -> int:
    api.get("/api/v1/components/scale/dashboard")  # figures computed and cached on the first read
    with CaptureQueriesContext(connection) as queries:
        answer = api.get("/api/v1/components/scale/dashboard")
    assert answer.status_code == 200
    return len(queries.captured_queries)


def test_dashboard_queries_do_not_grow_with_its_tests(
    owner: User, owner_api: APIClient, clickhouse: None, redis_db: object
) -> None:
    _add_tests(owner, 4, 0)
    few = _queries(owner_api)
    _add_tests(owner, 12, 4)
    TestAnalysis.objects.all().delete()  # tests without an analysis must not be looked up one by one
    assert _queries(owner_api) == few


def test_change_points_are_computed_once_per_values(monkeypatch: pytest.MonkeyPatch, redis_db: object) -> None:
    calls: list[list[float]] = []
    real = changepoint.e_divisive

    def counted(values: Any) -> list[int]:
        calls.append(list(values))
        return real(values)

    monkeypatch.setattr(service, "e_divisive", counted)
    values = [10.0] * 10 + [30.0] * 10
    assert service.cached_change_points(values) == [10]
    assert service.cached_change_points(values) == [10]
    assert service.cached_change_points([*values, 31.0]) == [10]
    assert len(calls) == 2
