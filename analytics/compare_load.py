"""Load-level alignment for ramp tests (`line` schedules): the same quantile compared at the same RPS.

Two ramps rarely reach a given load at the same second (different start, different slope, a stage added),
so comparing them second by second mixes load levels. Here each second is labelled with its load (responses
per second), seconds of every test are grouped into common RPS bands over the range all tests covered, and each
band is compared with `analytics.compare.compare_quantiles` (the band's seconds of each test, in their order).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from analytics.compare import (
    DEFAULT_LEVELS,
    CompareSettings,
    QuantileComparison,
    SparseCounts,
    compare_quantiles,
    time_step_s,
)


@dataclass(frozen=True)
class LoadBand:
    """The seconds of every test whose load was at least rps_low and below rps_high, compared."""

    rps_low: float
    rps_high: float
    comparison: QuantileComparison


@dataclass(frozen=True)
class LoadComparison:
    bands: list[LoadBand]


def rps_per_second(data: SparseCounts) -> dict[int, float]:
    """Responses per second of each time slot (all histogram counts of the slot over its length)."""
    if data.seconds.size == 0:
        return {}
    step = time_step_s(data)
    uniq, inverse = np.unique(data.seconds, return_inverse=True)
    sums = np.bincount(inverse, weights=data.counts.astype(np.float64))
    return {int(s): float(c) / step for s, c in zip(uniq, sums, strict=True)}


def _nice_step(span: float, bands: int) -> float:
    raw = span / max(bands, 1)
    if raw <= 0:
        return 1.0
    magnitude = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if raw <= factor * magnitude:
            return float(factor * magnitude)
    return float(10 * magnitude)


def compare_by_load(
    tests: Sequence[SparseCounts],
    levels: Sequence[float] = DEFAULT_LEVELS,
    *,
    max_bands: int = 10,
    min_seconds: int = 3,
    settings: CompareSettings | None = None,
) -> LoadComparison:
    """Compare tests[1:] against tests[0] in RPS bands that every test covered for at least `min_seconds`."""
    loads = [rps_per_second(t) for t in tests]
    if not tests or any(not load for load in loads):
        return LoadComparison([])
    low = max(min(load.values()) for load in loads)
    high = min(max(load.values()) for load in loads)
    if high < low:
        return LoadComparison([])
    step = _nice_step(high - low, max_bands) if high > low else 1.0  # constant load: one band
    start = math.floor(low / step) * step
    bands: list[LoadBand] = []
    edge = start
    while edge <= high:
        top = edge + step
        picked: list[SparseCounts] = []
        chosen: list[list[int]] = []
        for load in loads:
            seconds = sorted(s for s, rps in load.items() if edge <= rps < top)
            if len(seconds) < min_seconds:
                break
            chosen.append(seconds)
        else:
            fewest = min(len(c) for c in chosen)
            for test, seconds in zip(tests, chosen, strict=True):
                band = test.select_seconds(np.isin(test.seconds, np.asarray(seconds, dtype=np.int64)))
                # Slot k of every test covers the same part of the band (the k-th of `fewest` stretches of its
                # seconds there, in order), so that the paired test pairs like loads even when one ramp is slower.
                rank = np.searchsorted(np.asarray(seconds, dtype=np.int64), band.seconds)
                picked.append(SparseCounts(rank * fewest // len(seconds), band.keys, band.counts))
            bands.append(LoadBand(edge, top, compare_quantiles(picked, levels, settings=settings)))
        edge = top
    return LoadComparison(bands)
