"""merge_rows: several cases' rows of one second as one row (the stream's "(other cases)", analytics.cases)."""

from __future__ import annotations

from typing import Any

import pytest

from analytics.histogram import bin_index_of_upper_edge_ms
from analytics.quantiles import sparse_histogram_quantiles_us
from analytics.schema.seconds import QUANTILE_COLUMNS, QUANTILE_LEVELS, ROW_FIELDS, Row
from analytics.seconds_merge import merge_rows

AT = {name: i for i, name in enumerate(ROW_FIELDS)}


def row(case: str, resps: int, expect_ms: float, q100_ms: float, http: dict[int, int], bins_ms: list[float]) -> Row:
    values: dict[str, Any] = {
        "ts": 1_700_000_000,
        "case": case,
        "reqps": 50.0,
        "threads": 8,
        "resps": resps,
        "expect_ms": expect_ms,
        "connect_time_ms": 1.0,
        "send_time_ms": 0.5,
        "latency_ms": expect_ms / 2,
        "receive_time_ms": 0.25,
        "input_bytes": 100 * resps,
        "output_bytes": 10 * resps,
        **{column: expect_ms for column in QUANTILE_COLUMNS[:-1]},
        "q100_ms": q100_ms,
        "net_codes": [0],
        "net_counts": [resps],
        "http_codes": sorted(http),
        "http_counts": [http[c] for c in sorted(http)],
        "hist_bins": [bin_index_of_upper_edge_ms(ms) for ms in bins_ms],
        "hist_counts": [resps // len(bins_ms)] * len(bins_ms),
    }
    return tuple(values[name] for name in ROW_FIELDS)


def test_one_row_is_only_renamed() -> None:
    one = row("/a", 4, 12.5, 30.0, {200: 4}, [10.0, 20.0])
    assert merge_rows(1_700_000_001, "(other cases)", [one]) == (1_700_000_001, "(other cases)", *one[2:])


def test_counts_add_means_reweigh_codes_merge_and_quantiles_come_off_the_added_histograms() -> None:
    a = row("/a", 2, 10.0, 12.0, {200: 2}, [10.0])
    b = row("/b", 6, 50.0, 90.0, {200: 3, 500: 3}, [40.0, 80.0])
    merged = merge_rows(1_700_000_000, "(other cases)", [a, b])
    assert merged[:2] == (1_700_000_000, "(other cases)")
    assert merged[AT["resps"]] == 8 and merged[AT["input_bytes"]] == 800 and merged[AT["output_bytes"]] == 80
    assert merged[AT["reqps"]] == 50.0 and merged[AT["threads"]] == 8  # the test's figures, not added
    assert merged[AT["expect_ms"]] == pytest.approx((2 * 10.0 + 6 * 50.0) / 8)
    assert merged[AT["latency_ms"]] == pytest.approx((2 * 5.0 + 6 * 25.0) / 8)
    assert (merged[AT["http_codes"]], merged[AT["http_counts"]]) == ([200, 500], [5, 3])
    assert (merged[AT["net_codes"]], merged[AT["net_counts"]]) == ([0], [8])
    bins, counts = merged[AT["hist_bins"]], merged[AT["hist_counts"]]
    assert sum(counts) == 8 and list(bins) == sorted(bins)
    expected_us = sparse_histogram_quantiles_us(bins, counts, QUANTILE_LEVELS)
    for level, column, value_us in zip(QUANTILE_LEVELS[:-1], QUANTILE_COLUMNS[:-1], expected_us, strict=False):
        assert merged[AT[column]] == pytest.approx(min(value_us / 1000, 90.0)), level
    assert merged[AT["q100_ms"]] == 90.0  # the largest value is exact


def test_rows_without_a_histogram_keep_each_levels_largest() -> None:
    a = row("/a", 2, 10.0, 12.0, {200: 2}, [10.0])
    b = row("/b", 0, 0.0, 0.0, {}, [10.0])
    a = (*a[: AT["hist_bins"]], [], [])
    b = (*b[: AT["hist_bins"]], [], [])
    merged = merge_rows(1_700_000_000, "x", [a, b])
    assert merged[AT["q50_ms"]] == 10.0 and merged[AT["q100_ms"]] == 12.0
    assert merged[AT["expect_ms"]] == 10.0  # b answered nothing: it weighs nothing
    assert (merged[AT["http_codes"]], merged[AT["http_counts"]]) == ([200], [2])
