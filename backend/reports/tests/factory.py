"""Test data for the reports suite: random phout-like samples, and the per-second rows derived from them.

The per-second rows are built here the way the tank builds them (tank-protocol.md §4.4: by response second,
per case plus an overall row, histogram on the tank's grid), so a test can store a "streamed" test (rows only)
or an "uploaded" one (samples plus rows) and compare what the API answers with numpy on the same samples.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from django.contrib.auth.models import User

from analytics.histogram import bin_indexes_for_values_us
from backend.clickhouse import client
from backend.clickhouse.tables import monitoring, samples, second_aggregates
from backend.loadtests.models import Test
from backend.reports import cache
from backend.sharing.tests.rows import START_TS, insert_seconds

T0 = 1_795_316_000
OWNER_PASSWORD = "pw-owner-123"


def finished_streamed_test(name: str = "done") -> Test:
    """A finished streamed test of user "owner" (password OWNER_PASSWORD): 10 seconds of rows from START_TS, one
    in ten slow and one 500, its bounds set; the rendered-answer cache emptied so no earlier test's answers show."""
    owner = User.objects.create_user("owner", password=OWNER_PASSWORD)
    test = Test.objects.create(owner=owner, name=name, status="ready", has_stream=True)
    insert_seconds(test.pk, 0, 10, fast_ms=20, slow_ms=300, fast=90, slow=10, http_500=1)
    Test.objects.filter(pk=test.pk).update(first_ts=START_TS, last_ts=START_TS + 9)
    test.refresh_from_db()
    cache.rendered.clear()
    return test


@dataclass
class Samples:
    receive_sec: np.ndarray
    tag: np.ndarray  # object array of str
    interval_real_us: np.ndarray
    connect_time_us: np.ndarray
    latency_us: np.ndarray
    size_in_bytes: np.ndarray
    size_out_bytes: np.ndarray
    net_code: np.ndarray
    proto_code: np.ndarray

    def __len__(self) -> int:
        return int(self.receive_sec.size)

    def mask(self, keep: np.ndarray) -> Samples:
        return Samples(**{k: v[keep] for k, v in self.__dict__.items()})


def random_samples(
    n: int, seconds: int, tags: tuple[str, ...] = ("index", "search", "missing"), seed: int = 1, t0: int = T0
) -> Samples:
    rng = np.random.default_rng(seed)
    interval = rng.lognormal(mean=10.0, sigma=0.8, size=n).astype(np.int64)  # ~22 ms median, long tail
    interval[rng.random(n) < 0.002] = 11_000_000  # a few 11 s timeouts
    net = np.where(interval >= 11_000_000, 110, 0).astype(np.int64)
    proto = rng.choice(np.array([200, 200, 200, 200, 404, 500]), size=n).astype(np.int64)
    proto[net != 0] = 0
    discarded = rng.random(n) < 0.01  # pandora's never-sent rows: all zero, net code 777
    interval[discarded] = 0
    net[discarded] = 777
    proto[discarded] = 0
    tag = np.array(tags, dtype=object)[rng.integers(0, len(tags), size=n)]
    return Samples(
        receive_sec=(t0 + rng.integers(0, seconds, size=n)).astype(np.int64),
        tag=tag,
        interval_real_us=interval,
        connect_time_us=(interval // 10),
        latency_us=(interval // 2),
        size_in_bytes=rng.integers(100, 2000, size=n),
        size_out_bytes=rng.integers(50, 300, size=n),
        net_code=net,
        proto_code=proto,
    )


def insert_samples(test_id: int, upload_id: int, s: Samples) -> None:
    n = len(s)
    zeros = np.zeros(n, dtype=np.int64)
    cols: dict[str, Any] = {
        "test_id": [test_id] * n,
        "upload_id": [upload_id] * n,
        "receive_sec": s.receive_sec.tolist(),
        "send_ts_us": (s.receive_sec * 1_000_000 - s.interval_real_us).clip(min=0).tolist(),
        "tag": s.tag.tolist(),
        "interval_real_us": s.interval_real_us.tolist(),
        "connect_time_us": s.connect_time_us.tolist(),
        "send_time_us": zeros.tolist(),
        "latency_us": s.latency_us.tolist(),
        "receive_time_us": zeros.tolist(),
        "interval_event_us": zeros.tolist(),
        "size_out_bytes": s.size_out_bytes.tolist(),
        "size_in_bytes": s.size_in_bytes.tolist(),
        "net_code": s.net_code.tolist(),
        "proto_code": s.proto_code.tolist(),
    }
    assert tuple(cols) == samples.COLUMNS
    client.insert_columns(samples.NAME, cols, tag="tests.reports.samples")


def _counts(values: np.ndarray) -> tuple[list[int], list[int]]:
    codes, counts = np.unique(values, return_counts=True)
    return [int(c) for c in codes], [int(c) for c in counts]


def aggregate_rows(
    test_id: int, source_id: int, s: Samples, *, reqps: float = 0.0, threads: int = 0, received_at_us: int = 1
) -> list[tuple[Any, ...]]:
    """Per (second, case) rows plus the overall row '' of each second, as the tank pushes them."""
    rows: list[tuple[Any, ...]] = []
    for sec in np.unique(s.receive_sec):
        in_sec = s.receive_sec == sec
        # A request with an empty tag counts in the overall row only (analytics.phout.case_of_tag).
        groups = [("", in_sec)] + [(str(tag), in_sec & (s.tag == tag)) for tag in np.unique(s.tag[in_sec]) if tag]
        for case, m in groups:
            iv = s.interval_real_us[m]
            n = int(iv.size)
            q = np.percentile(iv, [50, 75, 80, 85, 90, 95, 98, 99, 100]) / 1000.0
            bins = bin_indexes_for_values_us(iv)
            hist_bins, hist_counts = _counts(bins[bins >= 0])
            net_codes, net_counts = _counts(s.net_code[m])
            http_codes, http_counts = _counts(s.proto_code[m])
            rows.append(
                (
                    test_id,
                    source_id,
                    int(sec),
                    case,
                    float(reqps),
                    int(threads),
                    n,
                    float(iv.mean() / 1000.0),
                    float(s.connect_time_us[m].mean() / 1000.0),
                    0.0,
                    float(s.latency_us[m].mean() / 1000.0),
                    0.0,
                    int(s.size_in_bytes[m].sum()),
                    int(s.size_out_bytes[m].sum()),
                    *[float(x) for x in q],
                    net_codes,
                    net_counts,
                    http_codes,
                    http_counts,
                    hist_bins,
                    hist_counts,
                    received_at_us,
                )
            )
    return rows


def insert_aggregates(rows: list[tuple[Any, ...]]) -> None:
    client.insert_rows(second_aggregates.NAME, second_aggregates.COLUMNS, rows, tag="tests.reports.aggregates")


def insert_monitoring(
    test_id: int, host: str, metrics: dict[str, list[float]], t0: int = T0, received_at_us: int = 1
) -> None:
    rows = [
        (test_id, t0 + i, host, metric, float(v), received_at_us)
        for metric, values in metrics.items()
        for i, v in enumerate(values)
    ]
    client.insert_rows(monitoring.NAME, monitoring.COLUMNS, rows, tag="tests.reports.monitoring")


def count_rows(table: str, test_id: int) -> int:
    # Table names come from the table modules' constants (callers pass module.NAME).
    rows = client.execute(f"SELECT count() FROM {table} WHERE test_id = %(t)s", {"t": test_id}, tag="tests.count")
    return int(rows[0][0])
