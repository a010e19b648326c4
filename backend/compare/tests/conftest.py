"""Fixtures of the compare suite: users, and tests stored as raw samples (uploaded) or as the tank's stream."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from django.contrib.auth.models import User

from analytics.histogram import bin_indexes_for_values_us
from backend.clickhouse import client
from backend.clickhouse.tables import samples, second_aggregates
from backend.loadtests.models import Test, TestStatus, Upload, UploadStatus

T0 = 1_795_316_000


def latencies_us(rng: np.random.Generator, n: int, tail_scale: float = 1.0) -> np.ndarray:
    """A body around 100 ms and a 3% tail of 0.5-1.5 s (scaled), as microseconds."""
    values = rng.lognormal(np.log(100_000.0), 0.3, n)
    tail = rng.random(n) < 0.03
    values[tail] = rng.uniform(500_000.0, 1_500_000.0, int(tail.sum())) * tail_scale
    return values.astype(np.int64)


def insert_samples(
    test_id: int,
    upload_id: int,
    receive_sec: np.ndarray,
    interval_us: np.ndarray,
    tags: np.ndarray,
    proto: np.ndarray,
    net: np.ndarray,
) -> None:
    n = int(receive_sec.size)
    zeros = [0] * n
    columns: dict[str, Any] = {
        "test_id": [test_id] * n,
        "upload_id": [upload_id] * n,
        "receive_sec": receive_sec.tolist(),
        "send_ts_us": (receive_sec * 1_000_000 - interval_us).clip(min=0).tolist(),
        "tag": [str(t) for t in tags],
        "interval_real_us": interval_us.tolist(),
        "connect_time_us": zeros,
        "send_time_us": zeros,
        "latency_us": zeros,
        "receive_time_us": zeros,
        "interval_event_us": zeros,
        "size_out_bytes": zeros,
        "size_in_bytes": zeros,
        "net_code": net.tolist(),
        "proto_code": proto.tolist(),
    }
    assert tuple(columns) == samples.COLUMNS
    client.insert_columns(samples.NAME, columns, tag="tests.compare.samples")


def stream_rows(
    test_id: int, receive_sec: np.ndarray, interval_us: np.ndarray, tags: np.ndarray
) -> list[tuple[Any, ...]]:
    """The tank's per-second rows (overall '' plus one per case) for the given requests, all HTTP 200 / net 0."""
    rows: list[tuple[Any, ...]] = []
    for sec in np.unique(receive_sec):
        in_sec = receive_sec == sec
        groups = [("", in_sec)] + [(str(t), in_sec & (tags == t)) for t in np.unique(tags[in_sec]) if t]
        for case, mask in groups:
            values = interval_us[mask]
            bins, counts = np.unique(bin_indexes_for_values_us(values), return_counts=True)
            n = int(values.size)
            q = [float(x) for x in np.percentile(values, [50, 75, 80, 85, 90, 95, 98, 99, 100]) / 1000.0]
            rows.append(
                (
                    test_id,
                    0,
                    int(sec),
                    case,
                    0.0,
                    1,
                    n,
                    float(values.mean() / 1000.0),
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                    0,
                    0,
                    *q,
                    [0],
                    [n],
                    [200],
                    [n],
                    [int(b) for b in bins],
                    [int(c) for c in counts],
                    1,
                )
            )
    return rows


@pytest.fixture
def store(owner: User, clickhouse: None, redis_db: Any) -> Callable[..., Test]:
    """Make a ready test with raw samples: `seconds` s from `t0`, `rps` per second, cases from `tags`."""

    def make(
        *,
        seed: int,
        seconds: int = 300,
        rps: int = 20,
        t0: int = T0,
        tail_scale: float = 1.0,
        tags: tuple[str, ...] = ("index", "search"),
        error_share: float = 0.0,
        streamed: bool = False,
        loadscheme: list[Any] | None = None,
        ramp_to: int | None = None,
    ) -> Test:
        rng = np.random.default_rng(seed)
        per_second = np.full(seconds, rps)
        if ramp_to is not None:  # line(1, ramp_to, seconds): one more request per second every so often
            per_second = np.round(1 + (ramp_to - 1) * np.arange(seconds) / (seconds - 1)).astype(np.int64)
        receive_sec = np.repeat(np.arange(seconds) + t0, per_second).astype(np.int64)
        n = receive_sec.size
        interval = latencies_us(rng, n, tail_scale)
        tag = np.array(tags, dtype=object)[rng.integers(0, len(tags), n)]
        proto = np.where(rng.random(n) < error_share, 500, 200).astype(np.int64)
        net = np.zeros(n, dtype=np.int64)
        test = Test.objects.create(
            owner=owner,
            name=f"seed {seed}",
            status=TestStatus.READY,
            has_stream=streamed,
            first_ts=t0,
            last_ts=t0 + seconds - 1,
            loadscheme=loadscheme or ["const(20, 5m)"],
        )
        if streamed:
            rows = stream_rows(test.pk, receive_sec, interval, tag)
            client.insert_rows(second_aggregates.NAME, second_aggregates.COLUMNS, rows, tag="tests.compare.stream")
            return test
        upload = Upload.objects.create(test=test, status=UploadStatus.READY)
        insert_samples(test.pk, upload.pk, receive_sec, interval, tag, proto, net)
        test.active_upload = upload
        test.save(update_fields=["active_upload"])
        return test

    return make
