"""The tank's fixed histogram grid (yandex-tank `aggregator`, `verbose_histogram=True`).

3721 edges in µs. A push_data `time_intervals` item `{"to": ms, "count": n}` names the edge that ends its bin;
bin i is [edge[i-1], edge[i]) and the last bin includes its right edge. Values above 300 s (or below 0) are not
counted in the tank's histogram, though they are counted in `resps`.
We store bins by the index of their upper edge in BIN_EDGES_US, so windows merge by summing counts per index.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from analytics.definitions import quantile_ranks


def _build_edges_us() -> npt.NDArray[np.int64]:
    parts = [
        np.arange(0, 5_000, 10),  # 0–4990 µs, step 10 µs
        np.arange(5_000, 10_000, 100),  # 5000–9900 µs, step 100 µs
        np.arange(10_000, 500_000, 1_000),  # 10–499 ms, step 1 ms
        np.arange(500_000, 3_000_000, 5_000),  # 500–2995 ms, step 5 ms
        np.arange(3_000_000, 10_000_000, 10_000),  # 3–9.99 s, step 10 ms
        np.arange(10_000_000, 30_000_000, 50_000),  # 10–29.95 s, step 50 ms
        np.arange(30_000_000, 120_000_000, 100_000),  # 30–119.9 s, step 100 ms
        np.arange(120_000_000, 300_000_001, 1_000_000),  # 120–300 s, step 1 s
    ]
    return np.concatenate(parts).astype(np.int64)


BIN_EDGES_US: npt.NDArray[np.int64] = _build_edges_us()
BIN_COUNT = int(BIN_EDGES_US.size)
MAX_HIST_US = int(BIN_EDGES_US[-1])


def lower_edge_us(index: int) -> int:
    """Lower edge of the bin whose upper edge is BIN_EDGES_US[index] (0 for the first)."""
    return 0 if index <= 0 else int(BIN_EDGES_US[index - 1])


def bin_index_of_upper_edge_ms(to_ms: float) -> int:
    """Index of the grid edge equal to a push item's `to` (ms, as float); raises if it is not on the grid."""
    edge_us = round(to_ms * 1000)
    index = int(np.searchsorted(BIN_EDGES_US, edge_us))
    if index >= BIN_COUNT or int(BIN_EDGES_US[index]) != edge_us:
        raise ValueError(f"histogram edge {to_ms} ms is not on the tank's bin grid")
    return index


def _segments() -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """First edge, step and first index of each run of equal steps (the grid's eight linear pieces)."""
    steps = np.diff(BIN_EDGES_US)
    firsts = [0] + [i for i in range(1, steps.size) if steps[i] != steps[i - 1]]
    index = np.array(firsts, dtype=np.int64)
    return BIN_EDGES_US[index], steps[index], index


_SEGMENT_EDGE_US, _SEGMENT_STEP_US, _SEGMENT_INDEX = _segments()


def bin_indexes_for_values_us(values_us: npt.NDArray[np.integer[Any]]) -> npt.NDArray[np.int64]:
    """Bin index (index of the upper edge) for each value, as the tank bins them; -1 where not counted.

    The tank uses numpy.histogram(values, bins=edges): bins are [e[i], e[i+1]) and the last is closed. A value v
    in [e[i], e[i+1]) is reported with `to` = e[i+1], i.e. our index i+1. It runs once per sample of every
    upload: below 500 ms (where every edge is a multiple of 10 µs) by one lookup in a table of the bin of each
    10 µs step, elsewhere from the grid's linear pieces (a search among 8 starts, then one division) rather
    than a search among 3721 edges.
    """
    values = np.asarray(values_us, dtype=np.int64)
    idx = _BELOW_LIMIT[np.clip(values, 0, _TABLE_LIMIT_US - 1) // _TABLE_STEP_US]
    others = (values < 0) | (values >= _TABLE_LIMIT_US)
    if others.any():
        idx[others] = _by_segments(values[others])
    return idx


def _by_segments(values: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    segment = np.maximum(np.searchsorted(_SEGMENT_EDGE_US, values, side="right") - 1, 0)
    idx = _SEGMENT_INDEX[segment] + (values - _SEGMENT_EDGE_US[segment]) // _SEGMENT_STEP_US[segment] + 1
    idx = np.where(values == MAX_HIST_US, BIN_COUNT - 1, idx)
    outside = (values < 0) | (values > MAX_HIST_US)
    return np.where(outside, -1, idx).astype(np.int64)


_TABLE_LIMIT_US = 500_000
_TABLE_STEP_US = 10
assert not (BIN_EDGES_US[BIN_EDGES_US < _TABLE_LIMIT_US] % _TABLE_STEP_US).any()  # one bin per 10 µs step
_BELOW_LIMIT = _by_segments(np.arange(0, _TABLE_LIMIT_US, _TABLE_STEP_US, dtype=np.int64))


_I64s = npt.NDArray[np.int64]
NativeGrid = tuple[_I64s, _I64s, _I64s, _I64s, int, int, int]


def native_grid() -> NativeGrid:
    """The grid as the C aggregation kernel bins by it (analytics/_phout_fast.c, `bin_of`): the table of the bin of
    each 10 µs step below 500 ms, the linear pieces' first edges, steps and first indexes, the table's step, the
    grid's last edge and the number of bins."""
    return _BELOW_LIMIT, _SEGMENT_EDGE_US, _SEGMENT_STEP_US, _SEGMENT_INDEX, _TABLE_STEP_US, MAX_HIST_US, BIN_COUNT


LOWER_EDGES_US: npt.NDArray[np.int64] = np.concatenate([[0], BIN_EDGES_US[:-1]]).astype(np.int64)


RankRule = Callable[[npt.NDArray[np.int64], npt.ArrayLike], npt.NDArray[np.int64]]


def histogram_quantiles(
    counts: npt.ArrayLike,
    levels_pct: npt.ArrayLike,
    lower: npt.ArrayLike | None = None,
    upper: npt.ArrayLike | None = None,
    rank: RankRule = quantile_ranks,
) -> npt.NDArray[np.float64]:
    """The one rule for a quantile read off a histogram, used by the report, compare, diagnosis and trends.

    The quantile is the order statistic of the exact rule's rank (analytics.definitions.quantile_ranks); it lies in
    the bin where the cumulative count first exceeds that rank, and the k values of that bin are taken as spread
    evenly over it, the rank's own value at the middle of its share: lower + width * (rank - before + 0.5) / k.
    So the estimate never leaves the bin of the exact value. `counts` is one histogram or a matrix of them (one per
    row; counts may be fractional, e.g. resampled weights); `lower`/`upper` are each column's edges (default: the
    tank's grid in µs, columns = bin indexes). Returns (levels,) or (rows, levels); NaN where a histogram is empty.
    `rank` is for a statistic that is not a figure shown (compare's per-block test, analytics.compare); every
    figure takes the default, the exact rule's rank.
    """
    matrix = np.asarray(counts, dtype=np.float64)
    single = matrix.ndim == 1
    matrix = np.atleast_2d(matrix)
    low = LOWER_EDGES_US.astype(np.float64) if lower is None else np.asarray(lower, dtype=np.float64)
    high = BIN_EDGES_US.astype(np.float64) if upper is None else np.asarray(upper, dtype=np.float64)
    n_rows, n_bins = matrix.shape
    cum = np.cumsum(matrix, axis=1)
    totals = cum[:, -1] if n_bins else np.zeros(n_rows)
    levels = np.atleast_1d(np.asarray(levels_pct, dtype=np.float64))
    out = np.full((n_rows, levels.size), np.nan)
    if n_bins == 0:
        return out[0] if single else out
    ranks = rank(np.round(totals).astype(np.int64), levels)  # (rows, levels)
    rows = np.arange(n_rows)
    for j in range(levels.size):
        at = ranks[:, j].astype(np.float64)
        # First bin whose cumulative count exceeds the rank (the tolerance absorbs float sums of weights).
        idx = np.minimum((cum <= at[:, None] + 1e-9).sum(axis=1), n_bins - 1)
        before = np.where(idx > 0, cum[rows, np.maximum(idx - 1, 0)], 0.0)
        in_bin = matrix[rows, idx]
        fraction = np.clip((at - before + 0.5) / np.where(in_bin > 0, in_bin, 1.0), 0.0, 1.0)
        out[:, j] = np.where(totals > 0, low[idx] + (high[idx] - low[idx]) * fraction, np.nan)
    return out[0] if single else out
