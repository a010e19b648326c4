"""Quantiles of response times: exact order statistics of raw samples, and estimates from merged histograms.

Exact quantiles are the order statistic of analytics.definitions' rule (for a level p and n values the one at
sorted position floor(n × p), at most n - 1: ClickHouse's quantileExact, which answers the report), so they always
lie between numpy's `method="lower"` and `method="higher"`. Histogram quantiles work on the tank's bin grid
(analytics.histogram): the same order statistic is located in its bin and interpolated inside it, so the estimate
is never more than one bin width from the exact value.
Levels are percents (50, 99.9, 100) everywhere in the API; they become fractions only here.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from analytics.definitions import quantile_ranks
from analytics.histogram import BIN_COUNT, BIN_EDGES_US, LOWER_EDGES_US, histogram_quantiles

DEFAULT_LEVELS_PCT: tuple[float, ...] = (50.0, 75.0, 80.0, 85.0, 90.0, 95.0, 98.0, 99.0, 100.0)
MAX_LEVELS = 30

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def parse_levels(text: str | None) -> tuple[float, ...]:
    """Parse `q=50,99.9` (percents); raise ValueError naming the bad item. None or '' gives the defaults."""
    if text is None or not text.strip():
        return DEFAULT_LEVELS_PCT
    levels: list[float] = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        try:
            value = float(item)
        except ValueError as exc:
            raise ValueError(f"quantile level {item!r} is not a number") from exc
        if not math.isfinite(value) or value < 0 or value > 100:
            raise ValueError(f"quantile level {item!r} must be a percent between 0 and 100")
        levels.append(value)
    if not levels:
        return DEFAULT_LEVELS_PCT
    if len(levels) > MAX_LEVELS:
        raise ValueError(f"at most {MAX_LEVELS} quantile levels, got {len(levels)}")
    return tuple(dict.fromkeys(levels))


def level_key(level_pct: float) -> str:
    """The JSON key of a level, as the contract writes it: 50 -> "50", 99.9 -> "99.9"."""
    return f"{level_pct:g}"


def exact_quantiles(values: npt.ArrayLike, levels_pct: Sequence[float]) -> FloatArray:
    """Order statistics of `values` for each level (NaN when there are no values)."""
    data = np.asarray(values)
    if data.size == 0:
        return np.full(len(levels_pct), np.nan)
    ranks = quantile_ranks(int(data.size), levels_pct)
    unique_ranks = np.unique(ranks)
    part = np.partition(data, unique_ranks)
    return part[ranks].astype(np.float64)


def exact_quantiles_weighted(values: npt.ArrayLike, counts: npt.ArrayLike, levels_pct: Sequence[float]) -> FloatArray:
    """Order statistics of a multiset given as (value, count) pairs, in any order (counts may be 0)."""
    vals = np.asarray(values, dtype=np.float64)
    cnts = np.asarray(counts, dtype=np.int64)
    order = np.argsort(vals, kind="stable")
    vals, cnts = vals[order], cnts[order]
    cum = np.cumsum(cnts)
    total = int(cum[-1]) if cum.size else 0
    if total == 0:
        return np.full(len(levels_pct), np.nan)
    ranks = quantile_ranks(total, levels_pct)
    positions = np.searchsorted(cum, ranks, side="right")
    return vals[positions]


def dense_histogram(bins: npt.ArrayLike, counts: npt.ArrayLike) -> IntArray:
    """Sparse (bin index, count) pairs, possibly repeated, to a dense count per bin of the grid."""
    idx = np.asarray(bins, dtype=np.int64)
    cnt = np.asarray(counts, dtype=np.int64)
    keep = (idx >= 0) & (idx < BIN_COUNT)
    return np.bincount(idx[keep], weights=cnt[keep], minlength=BIN_COUNT).astype(np.int64)


def histogram_quantiles_us(hist: npt.ArrayLike, levels_pct: Sequence[float]) -> FloatArray:
    """Quantiles (µs) from dense histograms on the tank's grid: one row of counts per bin, or a matrix with one
    histogram per row (`analytics.histogram.histogram_quantiles`, the one rule everywhere).

    Returns shape (levels,) for one histogram, (rows, levels) for a matrix; NaN where a histogram is empty.
    """
    return histogram_quantiles(hist, levels_pct)


def sparse_histogram_quantiles_us(
    bins: npt.ArrayLike, counts: npt.ArrayLike, levels_pct: Sequence[float]
) -> FloatArray:
    """Quantiles (µs) of one histogram given as sparse (bin index, count) pairs."""
    return np.asarray(histogram_quantiles_us(dense_histogram(bins, counts), levels_pct), dtype=np.float64)


def bin_width_us(value_us: float) -> int:
    """Width of the grid bin holding `value_us` (the error bound of a histogram quantile there)."""
    idx = int(np.searchsorted(BIN_EDGES_US, value_us, side="right"))
    idx = min(max(idx, 1), BIN_COUNT - 1)
    return int(BIN_EDGES_US[idx] - LOWER_EDGES_US[idx])


def as_ms_dict(levels_pct: Iterable[float], values_us: Iterable[float]) -> dict[str, float | None]:
    """{"50": 12.3, ...} in ms at full precision (the API's; pages round once); None for an empty window."""
    out: dict[str, float | None] = {}
    for level, value in zip(levels_pct, values_us, strict=True):
        out[level_key(level)] = None if not math.isfinite(value) else float(value) / 1000.0
    return out
