"""Rows for ClickHouse in the shape the tank stream and the phout ingestion write them (shared test helpers)."""

from __future__ import annotations

import numpy as np

from analytics.histogram import bin_indexes_for_values_us
from backend.clickhouse import client
from backend.clickhouse.tables import samples, second_aggregates

START_TS = 1_700_000_000


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
