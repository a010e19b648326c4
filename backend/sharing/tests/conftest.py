"""Fixtures of the sharing tests: tests with per-second rows in ClickHouse, and a stand-in SPA index page."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from django.contrib.auth.models import User
from pytest_django.fixtures import Settings

from analytics.histogram import bin_indexes_for_values_us
from backend.clickhouse import client
from backend.clickhouse.tables import samples, second_aggregates
from backend.loadtests.models import Test, Upload

INDEX = "<!doctype html><html><head><title>Tankodrom</title></head><body><div id='root'></div></body></html>"
START_TS = 1_700_000_000


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


def one_bin(value_us: int) -> int:
    return int(bin_indexes_for_values_us(np.array([value_us], dtype=np.int64))[0])


def insert_seconds(
    test_id: int,
    source_id: int,
    seconds: int,
    *,
    fast_ms: int,
    slow_ms: int,
    fast: int,
    slow: int,
    http_500: int = 0,
    start_ts: int = START_TS,
) -> None:
    """Overall rows for `seconds` seconds: `fast` responses of fast_ms and `slow` of slow_ms each second,
    of which `http_500` answered 500 (the rest 200)."""
    resps = fast + slow
    rows = []
    for i in range(seconds):
        values = {
            "test_id": test_id,
            "source_id": source_id,
            "ts": start_ts + i,
            "case": "",
            "reqps": float(resps),
            "threads": 50,
            "resps": resps,
            "expect_ms": 0.0,
            "connect_time_ms": 0.1,
            "send_time_ms": 0.1,
            "latency_ms": 1.0,
            "receive_time_ms": 0.1,
            "input_bytes": 0,
            "output_bytes": 0,
            "q50_ms": float(fast_ms),
            "q75_ms": float(fast_ms),
            "q80_ms": float(fast_ms),
            "q85_ms": float(fast_ms),
            "q90_ms": float(fast_ms),
            "q95_ms": float(fast_ms),
            "q98_ms": float(slow_ms),
            "q99_ms": float(slow_ms),
            "q100_ms": float(slow_ms),
            "net_codes": [0],
            "net_counts": [resps],
            "http_codes": [200, 500] if http_500 else [200],
            "http_counts": [resps - http_500, http_500] if http_500 else [resps],
            "hist_bins": [one_bin(fast_ms * 1000), one_bin(slow_ms * 1000)],
            "hist_counts": [fast, slow],
            "received_at_us": 1,
        }
        rows.append(tuple(values[c] for c in second_aggregates.COLUMNS))
    client.insert_rows(second_aggregates.NAME, second_aggregates.COLUMNS, rows, tag="tests.sharing.seconds")


def insert_samples(test_id: int, upload_id: int, times_ms: list[int]) -> None:
    rows = []
    for i, ms in enumerate(times_ms):
        values = {
            "test_id": test_id,
            "upload_id": upload_id,
            "receive_sec": START_TS + i // 100,
            "send_ts_us": (START_TS + i // 100) * 1_000_000,
            "tag": "",
            "interval_real_us": ms * 1000,
            "connect_time_us": 10,
            "send_time_us": 10,
            "latency_us": ms * 1000 - 30,
            "receive_time_us": 10,
            "interval_event_us": 0,
            "size_out_bytes": 100,
            "size_in_bytes": 200,
            "net_code": 0,
            "proto_code": 200,
        }
        rows.append(tuple(values[c] for c in samples.COLUMNS))
    client.insert_rows(samples.NAME, samples.COLUMNS, rows, tag="tests.sharing.samples")


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
