"""Plotly JSON for a component's regression dashboard: one KPI across its tests.

Each point carries its test id in `customdata` (the page opens the test's report on a click); the threshold is a
dashed line, points past it red crosses, the baseline test a star, change points dotted vertical lines.
"""

from __future__ import annotations

from typing import Any

from analytics.figures import axis, plot
from analytics.regressions import KpiPoint, KpiSeries

WORSE = "#c62828"
BASELINE = "#2e7d32"
CHANGE = "#ef6c00"


def _display(series: KpiSeries, value: float | None) -> float | None:
    """Shares are plotted in percent, the unit people read them in."""
    if value is None:
        return None
    return round(value * 100.0, 6) if series.config.spec.unit == "" else round(value, 6)


def _trace(series: KpiSeries, points: list[KpiPoint], name: str, hover: str, **style: Any) -> dict[str, Any]:
    """The tests' points as one trace; each carries its test id (`customdata`) for the click through."""
    unit = series.config.spec.unit or "%"
    return {
        "type": "scatter",
        **style,
        "name": name,
        "x": [f"#{p.test_id}" for p in points],
        "y": [_display(series, p.value) for p in points],
        "customdata": [p.test_id for p in points],
        "hovertemplate": f"{hover}<br>%{{y}} {unit}<extra></extra>",
    }


def _mark_traces(series: KpiSeries, measured: list[KpiPoint], baseline_test_id: int | None) -> list[dict[str, Any]]:
    """Marks over some of the tests' points: those past the threshold, the baseline (none where there are none)."""
    past_ids = {p.test_id for p, past in zip(series.points, series.past, strict=True) if past}
    past = [p for p in measured if p.test_id in past_ids]
    baseline = [p for p in measured if p.test_id == baseline_test_id]
    marks = [
        (
            past,
            "past the threshold",
            {"color": WORSE, "size": 13, "symbol": "x"},
            "test %{customdata}: past the threshold",
        ),
        (baseline, "baseline", {"color": BASELINE, "size": 14, "symbol": "star"}, "baseline test %{customdata}"),
    ]
    return [
        _trace(series, points, name, hover, mode="markers", marker=marker)
        for points, name, marker, hover in marks
        if points
    ]


def _threshold_trace(series: KpiSeries, labels: list[str]) -> dict[str, Any]:
    return {
        "type": "scatter",
        "mode": "lines",
        "name": "threshold",
        "x": labels,
        "y": [_display(series, series.limit)] * len(labels),
        "line": {"dash": "dash", "color": WORSE},
        "hoverinfo": "skip",
    }


def _change_lines(series: KpiSeries) -> list[dict[str, Any]]:
    """A dotted vertical line at each change point."""
    return [
        {
            "type": "line",
            "xref": "x",
            "x0": f"#{test_id}",
            "x1": f"#{test_id}",
            "yref": "paper",
            "y0": 0,
            "y1": 1,
            "line": {"dash": "dot", "color": CHANGE},
        }
        for test_id in series.change_points
    ]


def kpi_figure(series: KpiSeries, baseline_test_id: int | None) -> dict[str, Any]:
    spec = series.config.spec
    measured = [p for p in series.points if p.value is not None]
    labels = [f"#{p.test_id}" for p in measured]
    data = [
        _trace(series, measured, spec.title, "test %{customdata}", mode="lines+markers"),
        *_mark_traces(series, measured, baseline_test_id),
    ]
    if series.limit is not None and labels:
        data.append(_threshold_trace(series, labels))
    return plot(
        data,
        spec.title,
        axis("test", type="category"),
        axis(spec.unit or "%", rangemode="tozero"),
        shapes=_change_lines(series),
        hovermode="closest",
    )
