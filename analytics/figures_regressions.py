"""Plotly JSON for a component's regression dashboard: one KPI across its tests.

Each point carries its test id in `customdata` (the page opens the test's report on a click); the threshold is a
dashed line, points past it red crosses, the baseline test a star, change points dotted vertical lines.
"""

from __future__ import annotations

from typing import Any

from analytics.regressions import KpiPoint, KpiSeries

WORSE = "#c62828"
BASELINE = "#2e7d32"
CHANGE = "#ef6c00"


def _display(series: KpiSeries, value: float | None) -> float | None:
    """Shares are plotted in percent, the unit people read them in."""
    if value is None:
        return None
    return round(value * 100.0, 6) if series.config.spec.unit == "" else round(value, 6)


def kpi_figure(series: KpiSeries, baseline_test_id: int | None) -> dict[str, Any]:
    spec = series.config.spec
    unit = spec.unit or "%"
    measured = [p for p in series.points if p.value is not None]
    labels = [f"#{p.test_id}" for p in measured]
    past_ids = {p.test_id for p, past in zip(series.points, series.past, strict=True) if past}
    data: list[dict[str, Any]] = [
        {
            "type": "scatter",
            "mode": "lines+markers",
            "name": spec.title,
            "x": labels,
            "y": [_display(series, p.value) for p in measured],
            "customdata": [p.test_id for p in measured],
            "hovertemplate": f"test %{{customdata}}<br>%{{y}} {unit}<extra></extra>",
        }
    ]

    def markers(points: list[KpiPoint], name: str, marker: dict[str, Any], hover: str) -> None:
        """Marks over some of the tests' points (those past the threshold, the baseline)."""
        if points:
            data.append(
                {
                    "type": "scatter",
                    "mode": "markers",
                    "name": name,
                    "x": [f"#{p.test_id}" for p in points],
                    "y": [_display(series, p.value) for p in points],
                    "customdata": [p.test_id for p in points],
                    "marker": marker,
                    "hovertemplate": f"{hover}<br>%{{y}} {unit}<extra></extra>",
                }
            )

    markers(
        [p for p in measured if p.test_id in past_ids],
        "past the threshold",
        {"color": WORSE, "size": 13, "symbol": "x"},
        "test %{customdata}: past the threshold",
    )
    markers(
        [p for p in measured if p.test_id == baseline_test_id],
        "baseline",
        {"color": BASELINE, "size": 14, "symbol": "star"},
        "baseline test %{customdata}",
    )
    if series.limit is not None and labels:
        data.append(
            {
                "type": "scatter",
                "mode": "lines",
                "name": "threshold",
                "x": labels,
                "y": [_display(series, series.limit)] * len(labels),
                "line": {"dash": "dash", "color": WORSE},
                "hoverinfo": "skip",
            }
        )
    shapes = [
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
    return {
        "data": data,
        "layout": {
            "title": {"text": spec.title},
            "xaxis": {"title": {"text": "test"}, "type": "category"},
            "yaxis": {"title": {"text": unit}, "rangemode": "tozero"},
            "shapes": shapes,
            "hovermode": "closest",
        },
    }
