"""`/healthz` is cheap enough for a load balancer: polls answer from the last check (refreshed in the background
every health.FRESH_S), not with four round trips each; `?deep=1` checks now."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from django.test import Client

from backend.core import health


@pytest.fixture
def counted_checks(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[float]]:
    calls: list[float] = []

    def fake_run_all() -> list[health.Check]:
        calls.append(time.monotonic())
        return [health.Check("clickhouse", True, "fake"), health.Check("postgres", True, "fake")]

    monkeypatch.setattr(health, "run_all", fake_run_all)
    health.forget()
    yield calls
    health.forget()


def test_polls_reuse_the_last_check(counted_checks: list[float]) -> None:
    client = Client()
    for _ in range(200):
        response = client.get("/healthz")
        assert response.status_code == 200
        assert response.json()["status"] == "ok"
        assert response["Cache-Control"] == "no-store"
    assert len(counted_checks) == 1, len(counted_checks)


def test_a_stale_check_is_refreshed_in_the_background(
    counted_checks: list[float], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(health, "FRESH_S", 0.05)
    client = Client()
    client.get("/healthz")
    time.sleep(0.1)
    assert client.get("/healthz").json()["checked_s_ago"] >= 0.05  # answered with the old one at once
    deadline = time.monotonic() + 5
    while len(counted_checks) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(counted_checks) == 2


def test_deep_checks_every_time(counted_checks: list[float]) -> None:
    client = Client()
    for _ in range(3):
        assert client.get("/healthz?deep=1").status_code == 200
    assert len(counted_checks) == 3
