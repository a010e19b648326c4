"""Plotly JSON for the compare page: overlaid quantiles over time, overlaid distributions, quantiles by load.

Pure (no plotly import needed): plain dicts `{"data": [...], "layout": {...}}` that the frontend renders with
PlotlyFigure and kaleido renders to PNG. Time axes are seconds since each test's own start, so runs started at
different moments overlay.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from analytics.compare import LOWER_MS, UPPER_MS, SparseCounts, hist_quantiles_ms, time_step_s
from analytics.compare_load import LoadComparison
from analytics.figures import axis, log_axis, plot

Figure = dict[str, Any]

# One colour per test, the baseline first; dashes tell quantile levels apart.
_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")
_DASHES = ("solid", "dash", "dot", "dashdot")
TIMELINE_LEVELS: tuple[float, ...] = (50.0, 95.0, 99.0)


def _colour(i: int) -> str:
    return _COLOURS[i % len(_COLOURS)]


def timeline_quantiles(
    data: SparseCounts, levels: Sequence[float], max_points: int = 300
) -> tuple[list[int], list[list[float | None]]]:
    """Quantiles per time slot, at most `max_points` slots. `data` seconds count from the test's start (0).

    Returns the slots' start offsets and one series per level. Seconds are merged into slots of equal width
    (the compress ratio) by summing histograms, so slot quantiles stay exact on the bin grid.
    """
    if data.seconds.size == 0:
        return [], [[] for _ in levels]
    # Slots start at the test's start, not at the first second in a window, so windows of two tests line up.
    first = min(0, int(data.seconds.min()))
    span = int(data.seconds.max()) - first + 1
    # Whole multiples of the data's own slot length, so that no chart slot falls between two data slots.
    step = time_step_s(data)
    width = step * max(1, -(-span // (max_points * step)))
    slots = (data.seconds - first) // width
    used, slot_col = np.unique(slots, return_inverse=True)
    bins, bin_col = np.unique(data.keys, return_inverse=True)
    matrix = np.zeros((used.size, bins.size))
    np.add.at(matrix, (slot_col, bin_col), data.counts.astype(np.float64))
    values = hist_quantiles_ms(matrix, LOWER_MS[bins], UPPER_MS[bins], levels)
    xs = [int(s) * width for s in used]
    series = [[None if np.isnan(v) else round(float(v), 3) for v in values[:, j]] for j in range(len(levels))]
    return xs, series


def quantiles_figure(
    labels: Sequence[str], tests: Sequence[SparseCounts], levels: Sequence[float] = TIMELINE_LEVELS
) -> Figure:
    """Response-time quantiles over time, one colour per test, one dash per level, x = seconds since start."""
    traces: list[dict[str, Any]] = []
    for i, (label, data) in enumerate(zip(labels, tests, strict=True)):
        xs, series = timeline_quantiles(data, levels)
        for j, level in enumerate(levels):
            traces.append(
                {
                    "type": "scatter",
                    "mode": "lines",
                    "name": f"{label} p{level:g}",
                    "legendgroup": label,
                    "x": xs,
                    "y": series[j],
                    "line": {"color": _colour(i), "dash": _DASHES[j % len(_DASHES)], "width": 1.5},
                }
            )
    return plot(
        traces,
        "Response time quantiles, aligned at each test's start",
        axis("seconds since start"),
        axis("ms", rangemode="tozero"),
        hovermode="x unified",
        legend={"orientation": "h"},
    )


def _positive_range(traces: Sequence[dict[str, Any]]) -> tuple[float, float]:
    xs = [x for trace in traces for x in trace["x"] if x > 0]
    return (min(xs), max(xs)) if xs else (1.0, 1000.0)


def distribution_figure(labels: Sequence[str], tests: Sequence[SparseCounts]) -> Figure:
    """Cumulative distribution of response times per test (percent of responses at or below x ms)."""
    traces: list[dict[str, Any]] = []
    for i, (label, data) in enumerate(zip(labels, tests, strict=True)):
        totals = data.totals_by_key()
        if not totals:
            continue
        bins = np.array(sorted(totals), dtype=np.int64)
        counts = np.array([totals[int(b)] for b in bins], dtype=np.float64)
        cdf = np.cumsum(counts) / counts.sum() * 100.0
        # Start each curve at the lower edge of its first bin, so steps are drawn where the data begins.
        xs = [float(LOWER_MS[bins[0]]), *(float(x) for x in UPPER_MS[bins])]
        ys = [0.0, *(round(float(y), 4) for y in cdf)]
        traces.append(
            {
                "type": "scatter",
                "mode": "lines",
                "name": label,
                "x": xs,
                "y": ys,
                "line": {"color": _colour(i), "shape": "hv", "width": 1.5},
            }
        )
    return plot(
        traces,
        "Distribution of response times",
        axis("response time, ms", **log_axis(*_positive_range(traces))),
        axis("% of responses ≤ x", range=[0, 100]),
        legend={"orientation": "h"},
    )


# A verdict wherever a figure shows one: its colour (apart from the tests' own) and its marker.
VERDICT_COLOURS = {"worse": "#b00020", "better": "#1b7f3b"}
VERDICT_SYMBOLS = {"worse": "triangle-up", "better": "triangle-down"}


def by_load_figure(labels: Sequence[str], comparison: LoadComparison, levels: Sequence[float]) -> Figure:
    """Quantiles against load (RPS band centres), one colour per test, one dash per level; a band where a test is
    `worse` or `better` than the baseline has its marker in that verdict's colour and shape (▲ worse, ▼ better)."""
    traces: list[dict[str, Any]] = []
    xs = [round((band.rps_low + band.rps_high) / 2.0, 3) for band in comparison.bands]
    for i, label in enumerate(labels):
        for j, level in enumerate(levels):
            ys: list[float | None] = []
            marks: list[str] = []
            symbols: list[str] = []
            for band in comparison.bands:
                k = band.comparison.levels.index(float(level)) if float(level) in band.comparison.levels else -1
                ys.append(band.comparison.values_ms[i][k] if k >= 0 else None)
                verdict = band.comparison.verdict[i][k] if k >= 0 else None
                marks.append(VERDICT_COLOURS.get(verdict or "", _colour(i)))
                symbols.append(VERDICT_SYMBOLS.get(verdict or "", "circle"))
            traces.append(
                {
                    "type": "scatter",
                    "mode": "lines+markers",
                    "name": f"{label} p{level:g}",
                    "legendgroup": label,
                    "x": xs,
                    "y": ys,
                    "line": {"color": _colour(i), "dash": _DASHES[j % len(_DASHES)], "width": 1.5},
                    "marker": {"color": marks, "symbol": symbols, "size": 8},
                }
            )
    return plot(
        traces,
        "Response time quantiles by load",
        axis("responses per second"),
        axis("ms", rangemode="tozero"),
        legend={"orientation": "h"},
    )
