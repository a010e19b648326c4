"""Chart resolution: `compress_ratio` (seconds per chart point) and bucketing of per-second series.

Charts of long tests are downsampled so that a 1-hour test does not ship 3600 points per series at low zoom;
tables never are. Buckets start at the window's origin (the test's first second by default), so the first
point of a chart is the start of the test whatever the ratio.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
import numpy.typing as npt

MAX_CHART_POINTS = 600
MAX_COMPRESS_RATIO = 86_400
# Ratios people read easily on an axis ("1 sec. per dot", "5 sec.", "1 min."), as Overload offered.
NICE_RATIOS: tuple[int, ...] = (1, 2, 3, 5, 10, 15, 20, 30, 60, 120, 180, 300, 600, 900, 1800, 3600, 7200, 21600, 86400)

Reducer = Literal["sum", "mean", "max", "min", "last"]


def auto_compress_ratio(duration_s: int, max_points: int = MAX_CHART_POINTS) -> int:
    """The smallest nice ratio that keeps a window of `duration_s` seconds within `max_points` points."""
    need = max(1, math.ceil(max(int(duration_s), 1) / max_points))
    for ratio in NICE_RATIOS:
        if ratio >= need:
            return ratio
    return MAX_COMPRESS_RATIO


def parse_compress_ratio(text: str | None) -> int | None:
    """`compress_ratio=5` -> 5; missing, '' or 'auto' -> None (choose automatically); ValueError otherwise."""
    if text is None or text.strip() in ("", "auto"):
        return None
    try:
        value = int(text)
    except ValueError as exc:
        raise ValueError(f"compress_ratio {text!r} must be a whole number of seconds or 'auto'") from exc
    if value < 1 or value > MAX_COMPRESS_RATIO:
        raise ValueError(f"compress_ratio must be between 1 and {MAX_COMPRESS_RATIO} seconds")
    return value


def bucket_starts(ts: npt.ArrayLike, origin: int, ratio: int) -> npt.NDArray[np.int64]:
    """Start second of the bucket of each timestamp."""
    t = np.asarray(ts, dtype=np.int64)
    return origin + ((t - origin) // ratio) * ratio


def downsample(
    ts: npt.ArrayLike, values: npt.ArrayLike, origin: int, ratio: int, how: Reducer
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """Reduce a series (any order, repeated seconds allowed) to one value per bucket, buckets ascending."""
    t = np.asarray(ts, dtype=np.int64)
    v = np.asarray(values, dtype=np.float64)
    if t.size == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
    starts = bucket_starts(t, origin, ratio)
    keys, inverse = np.unique(starts, return_inverse=True)
    out: npt.NDArray[np.float64]
    if how == "sum":
        out = np.bincount(inverse, weights=v, minlength=keys.size).astype(np.float64)
    elif how == "mean":
        sums = np.bincount(inverse, weights=v, minlength=keys.size)
        out = sums / np.bincount(inverse, minlength=keys.size).astype(np.float64)
    elif how == "max":
        out = np.full(keys.size, -np.inf)
        np.maximum.at(out, inverse, v)
    elif how == "min":
        out = np.full(keys.size, np.inf)
        np.minimum.at(out, inverse, v)
    else:  # last: the value of the latest second in the bucket
        order = np.argsort(t, kind="stable")
        out = np.zeros(keys.size)
        out[inverse[order]] = v[order]
    return keys.astype(np.int64), out.astype(np.float64)
