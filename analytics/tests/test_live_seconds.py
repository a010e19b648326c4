"""A growing file's seconds, aggregated as they complete and pushed as the tank pushes them (analytics.live_seconds,
analytics.tank_push_items)."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from analytics.aggregate import SecondTable, aggregate_table
from analytics.live_seconds import LiveSeconds
from analytics.schema.samples import PhoutBatch
from analytics.schema.seconds import ROW_FIELDS, Row
from analytics.tank_push import parse_push_data
from analytics.tank_push_items import push_bodies

T0 = 1_700_000_000
CASES = ["", "home", "cart add"]


def batch(seconds: list[int], cases: list[int], times_us: list[int], http: list[int] | None = None) -> PhoutBatch:
    n = len(seconds)
    zeros = np.zeros(n, dtype=np.int64)
    times = np.array(times_us, dtype=np.int64)
    send_ts_us = np.array(seconds, dtype=np.int64) * 1_000_000 + 1000
    columns: dict[str, Any] = {
        "send_ts_us": send_ts_us,
        "case_codes": np.array(cases, dtype=np.int32),
        "interval_real_us": times,
        "connect_time_us": times // 10,
        "send_time_us": zeros + 5,
        "latency_us": times // 2,
        "receive_time_us": zeros,
        "interval_event_us": zeros,
        "size_out_bytes": zeros + 100,
        "size_in_bytes": zeros + 900,
        "net_code": zeros,
        "proto_code": np.array(http or [200] * n, dtype=np.int64),
    }
    columns["receive_sec"] = (send_ts_us + times) // 1_000_000
    return PhoutBatch.of(columns)


def rows_of(table: SecondTable) -> list[Row]:
    """The table's rows as the push's parser gives them back."""
    out = []
    for body in push_bodies(table).values():
        out += parse_push_data(body)
    return out


def test_a_second_is_given_once_over_and_again_whole_when_late_samples_come() -> None:
    live = LiveSeconds(keep_s=5)
    live.add(batch([T0, T0, T0 + 1], [1, 2, 1], [10_000, 20_000, 30_000]))
    first = live.due(T0 + 1, CASES)  # second T0 is over, T0 + 1 is not
    assert first.ts.tolist() == [T0, T0, T0] and first.case == ["cart add", "home", ""]
    assert live.due(T0 + 1, CASES).size == 0  # nothing new
    live.add(batch([T0], [1], [40_000]))  # a late request of T0 (written after T0 + 1's)
    again = live.due(T0 + 2, CASES)
    overall = {int(ts): int(n) for ts, n, c in zip(again.ts, again.resps, again.case, strict=True) if c == ""}
    assert overall == {T0: 3, T0 + 1: 1}  # T0 whole again, with its late request


def test_seconds_older_than_kept_are_left_to_the_upload() -> None:
    live = LiveSeconds(keep_s=2)
    live.add(batch([T0, T0 + 10], [1, 1], [1000, 1000]))
    live.due(T0 + 11, CASES)
    live.add(batch([T0 + 1, T0 + 9], [1, 1], [1000, 1000]))
    assert live.late_samples == 1
    assert live.due(T0 + 11, CASES).ts.tolist() == [T0 + 9, T0 + 9]


def test_pushed_bodies_read_back_as_the_rows_an_upload_aggregates() -> None:
    data = batch(
        [T0, T0, T0, T0 + 1, T0 + 1], [1, 2, 0, 1, 1], [1500, 250_000, 7, 12_345, 899_999], [200, 500, 0, 404, 200]
    )
    table = aggregate_table(data, CASES)
    bodies = push_bodies(table, np.full(table.size, 3))
    assert [item["case"] for item in bodies[T0]] == ["cart add", "home", ""] and bodies[T0][-1]["overall"] == 1
    assert {item["trail"]["threads"] for body in bodies.values() for item in body} == {3}
    parsed = {(row[0], row[1]): dict(zip(ROW_FIELDS, row, strict=True)) for row in rows_of(table)}
    for i in range(table.size):
        row = parsed[(int(table.ts[i]), table.case[i])]
        assert row["resps"] == table.resps[i] and row["expect_ms"] == table.expect_ms[i]
        assert row["q99_ms"] == table.quantiles_ms[i, 7] and row["input_bytes"] == table.input_bytes[i]
    assert parsed[(T0, "")]["http_codes"] == (0, 200, 500) and parsed[(T0, "")]["http_counts"] == (1, 1, 1)
    assert sum(parsed[(T0 + 1, "home")]["hist_counts"]) == 2


@settings(max_examples=50, deadline=None)
@given(
    # Requests written within the kept seconds of each other (a generator writes them as they complete).
    st.lists(st.tuples(st.integers(0, 20), st.integers(0, 2), st.integers(0, 60_000_000)), min_size=1, max_size=60),
    st.integers(1, 10),
)
def test_seconds_given_in_any_pieces_end_as_the_aggregate_of_all(samples: list[tuple[int, int, int]], cut: int) -> None:
    """However the file is cut while it grows, the last push of each second is that second's aggregate."""
    live = LiveSeconds(keep_s=100)
    latest: dict[tuple[int, str], Row] = {}
    for start in range(0, len(samples), cut):
        part = samples[start : start + cut]
        live.add(batch([T0 + s for s, _, _ in part], [c for _, c, _ in part], [t for _, _, t in part]))
        newest = max(T0 + s for s, _, _ in samples[: start + cut])
        for row in rows_of(live.due(newest, CASES)):
            latest[(row[0], row[1])] = row
    for row in rows_of(live.due(T0 + 10**6, CASES)):
        latest[(row[0], row[1])] = row
    everything = batch([T0 + s for s, _, _ in samples], [c for _, c, _ in samples], [t for _, _, t in samples])
    expected = {(row[0], row[1]): row for row in rows_of(aggregate_table(everything, CASES))}
    assert latest == expected
