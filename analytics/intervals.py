"""Overload's table of response-time intervals: how many responses fell in each interval, and their share.

Counted from a dense histogram on the tank's grid (analytics/histogram.py). Every interval edge is an edge of
that grid, so the counts are exact: no response is split between two intervals.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from analytics.histogram import BIN_EDGES_US, MAX_HIST_US

# Interval edges in ms, Overload's steps: fine where services answer, coarse in the tail.
INTERVAL_EDGES_MS: tuple[int, ...] = (
    0, 1, 2, 3, 5, 10, 20, 30, 50, 100, 200, 300, 500, 1000, 2000, 3000, 5000, 10000, 30000, 60000,
    MAX_HIST_US // 1000,
)  # fmt: skip


@dataclass(frozen=True)
class IntervalRow:
    from_ms: int
    to_ms: int
    count: int
    share: float  # of all counted responses, 0..1


def interval_table(hist: npt.ArrayLike) -> list[IntervalRow]:
    """Rows [from_ms, to_ms) with their count and share of all counted responses, empty intervals dropped.

    `hist[i]` counts the bin whose upper edge is BIN_EDGES_US[i] (the values below that edge): bin i belongs to
    the interval whose upper edge is at or above it. The last interval includes its right edge (300 s)."""
    counts = np.asarray(hist, dtype=np.int64)
    total = int(counts.sum())
    if total == 0:
        return []
    edges_us = np.asarray(INTERVAL_EDGES_MS, dtype=np.int64) * 1000
    # The interval of each bin: the first interval edge at or above the bin's upper edge (bin 0 goes to the first).
    which = np.clip(np.searchsorted(edges_us, BIN_EDGES_US, side="left"), 1, len(edges_us) - 1) - 1
    per_interval = np.bincount(which, weights=counts, minlength=len(edges_us) - 1).astype(np.int64)
    return [
        IntervalRow(
            from_ms=INTERVAL_EDGES_MS[i],
            to_ms=INTERVAL_EDGES_MS[i + 1],
            count=int(n),
            share=int(n) / total,
        )
        for i, n in enumerate(per_interval.tolist())
        if n
    ]
