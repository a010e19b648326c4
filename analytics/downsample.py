"""Chart resolution: `compress_ratio`, the seconds per chart point.

Charts of long tests are downsampled so that a 1-hour test does not ship 3600 points per series at low zoom;
tables never are. ClickHouse groups the seconds into buckets that start at the window's origin (the test's first
second by default; backend/clickhouse/queries/series.py), so the first point of a chart is the start of the test
whatever the ratio.
"""

from __future__ import annotations

import math

MAX_CHART_POINTS = 600
MAX_COMPRESS_RATIO = 86_400
# Ratios people read easily on an axis ("1 sec. per dot", "5 sec.", "1 min."), as Overload offered.
NICE_RATIOS: tuple[int, ...] = (1, 2, 3, 5, 10, 15, 20, 30, 60, 120, 180, 300, 600, 900, 1800, 3600, 7200, 21600, 86400)


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
