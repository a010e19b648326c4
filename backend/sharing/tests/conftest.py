"""Fixtures of the sharing tests: tests with per-second rows in ClickHouse, and a stand-in SPA index page."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from pytest_django.fixtures import Settings

from backend.loadtests.models import Test, Upload
from backend.sharing.tests.rows import START_TS, insert_samples, insert_seconds

INDEX = "<!doctype html><html><head><title>Tankodrom</title></head><body><div id='root'></div></body></html>"


@pytest.fixture
def dist(tmp_path: Path, settings: Settings) -> Path:
    """The page view serves the built SPA; tests use a minimal index.html instead of a frontend build."""
    (tmp_path / "index.html").write_text(INDEX, encoding="utf-8")
    settings.FRONTEND_DIST = tmp_path
    settings.PUBLIC_URL = "https://results.example.com"
    return tmp_path


@pytest.fixture
def fresh_cache(redis_db: object) -> Iterator[None]:
    """Previews are cached in the test Redis database: start each test without them."""
    yield


@pytest.fixture
def owner(db: None) -> User:
    return User.objects.create_user("tester", password="pw-tester-123")


@pytest.fixture
def streamed(owner: User, clickhouse: None, fresh_cache: None) -> Test:
    """A finished streamed test: 10 s at 5000 rps, 2% of responses at 1045 ms, 0.1% answered 500."""
    test = Test.objects.create(owner=owner, name="api v2 const", status="ready", has_stream=True)
    insert_seconds(test.pk, 0, 10, fast_ms=200, slow_ms=1045, fast=4900, slow=100, http_500=5)
    Test.objects.filter(pk=test.pk).update(first_ts=START_TS, last_ts=START_TS + 9)
    test.refresh_from_db()
    return test


@pytest.fixture
def uploaded(owner: User, clickhouse: None, fresh_cache: None) -> Test:
    """A test with an active upload of 1000 raw samples taking 1..1000 ms."""
    test = Test.objects.create(owner=owner, name="from phout", status="ready")
    upload = Upload.objects.create(test=test, status="ready")
    insert_samples(test.pk, upload.pk, list(range(1, 1001)))
    insert_seconds(test.pk, upload.pk, 10, fast_ms=500, slow_ms=1000, fast=99, slow=1)
    Test.objects.filter(pk=test.pk).update(active_upload=upload, first_ts=START_TS, last_ts=START_TS + 9)
    test.refresh_from_db()
    return test
