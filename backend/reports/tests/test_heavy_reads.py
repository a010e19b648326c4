"""Anonymous readers asking a public test for windows of their own (ClickHouse reads) are limited per address with
429 and Retry-After; the cached default view, signed-in users and other addresses are not."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from backend.loadtests.models import Test
from backend.reports.tests.factory import finished_streamed_test
from backend.sharing.tests.rows import START_TS


@pytest.fixture
def finished(db: None, clickhouse: None, redis_db: object, settings: Any) -> Test:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "anon_read": "3/min"},
    }
    return finished_streamed_test()


def _windows(test: Test) -> list[str]:
    base = f"/api/v1/tests/{test.pk}"
    return [
        f"{base}/summary?from={START_TS + 1}",
        f"{base}/summary?q=50,97",
        f"{base}/charts/quantiles?from={START_TS + 2}",
        f"{base}/tables?to={START_TS + 5}",
        f"{base}/summary?from={START_TS + 3}",
    ]


def test_anonymous_windows_of_their_own_are_limited_per_address(finished: Test) -> None:
    stranger = Client(REMOTE_ADDR="198.51.100.7")
    answers = [stranger.get(url) for url in _windows(finished)]
    assert [a.status_code for a in answers] == [200, 200, 200, 429, 429]
    refused = answers[3]
    assert 1 <= int(refused["Retry-After"]) <= 61
    assert "retry in" in refused.json()["error"]
    # An answer already rendered costs nothing: it is served, as is the cached default view, as often as asked.
    assert stranger.get(_windows(finished)[0]).status_code == 200
    for _ in range(5):
        assert stranger.get(f"/api/v1/tests/{finished.pk}/summary").status_code == 200
    # Another address has its own count; a signed-in reader is not limited.
    assert Client(REMOTE_ADDR="198.51.100.8").get(_windows(finished)[4]).status_code == 200
    owner = Client(REMOTE_ADDR="198.51.100.7")
    assert owner.login(username="owner", password="pw-owner-123")
    own = [f"/api/v1/tests/{finished.pk}/summary?from={START_TS + k}" for k in range(4, 9)]
    assert [owner.get(url).status_code for url in own] == [200] * 5
