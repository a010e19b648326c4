"""The response-time interval table counts each response in exactly one interval, on the grid's edges."""

from __future__ import annotations

import numpy as np

from analytics.histogram import BIN_COUNT, BIN_EDGES_US
from analytics.intervals import INTERVAL_EDGES_MS, interval_table


def _hist_of(values_us: list[int]) -> np.ndarray:
    # A value v is counted in the bin [edge[i-1], edge[i]) by the index of its upper edge.
    hist = np.zeros(BIN_COUNT, dtype=np.int64)
    for v in values_us:
        hist[int(np.searchsorted(BIN_EDGES_US, v, side="right"))] += 1
    return hist


def test_values_fall_in_their_interval_and_edges_go_up() -> None:
    # 0.5 ms and 0.99 ms in [0, 1); exactly 1 ms in [1, 2); 4.99 ms in [3, 5); 250 ms in [200, 300).
    rows = interval_table(_hist_of([500, 990, 1000, 4990, 250_000]))
    got = [(r.from_ms, r.to_ms, r.count) for r in rows]
    assert got == [(0, 1, 2), (1, 2, 1), (3, 5, 1), (200, 300, 1)]
    assert [r.share for r in rows] == [0.4, 0.2, 0.2, 0.2]


def test_the_tail_and_an_empty_histogram() -> None:
    rows = interval_table(_hist_of([59_999_000, 60_000_000, 299_000_000]))
    assert [(r.from_ms, r.to_ms, r.count) for r in rows] == [(30000, 60000, 1), (60000, 300000, 2)]
    assert interval_table(np.zeros(BIN_COUNT, dtype=np.int64)) == []


def test_every_interval_edge_is_a_grid_edge() -> None:
    assert all(int(e) * 1000 in set(BIN_EDGES_US.tolist()) for e in INTERVAL_EDGES_MS)
