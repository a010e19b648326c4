"""Plotly JSON for the diagnosis: the USL fit (Extended analysis tab) and a component's trend (component page).

Plain dicts in the `{"data": [...], "layout": {...}}` shape the frontend's PlotlyFigure renders; no plotly import
is needed to build them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from analytics.diagnosis.types import FloatArray
from analytics.figures import axis, plot

if TYPE_CHECKING:
    from analytics.diagnosis.trend import TrendAnalysis
    from analytics.diagnosis.usl import UslFit


def usl_figure(concurrency: FloatArray, throughput_rps: FloatArray, fit: UslFit) -> dict[str, Any]:
    top = float(concurrency.max())
    if fit.peak_concurrency is not None:
        top = max(top, min(fit.peak_concurrency * 1.3, top * 3))
    grid = np.linspace(1.0, max(top, 2.0), 200)
    data: list[dict[str, Any]] = [
        {
            "type": "scatter",
            "mode": "markers",
            "name": "measured",
            "x": [float(v) for v in concurrency],
            "y": [round(float(v), 3) for v in throughput_rps],
        },
        {
            "type": "scatter",
            "mode": "lines",
            "name": f"USL σ={fit.sigma:.3f} κ={fit.kappa:.5f}",
            "x": [round(float(v), 3) for v in grid],
            "y": [round(float(v), 3) for v in fit.predict(grid)],
        },
    ]
    shapes: list[dict[str, Any]] = []
    if fit.peak_concurrency is not None:
        shapes.append(
            {
                "type": "line",
                "x0": fit.peak_concurrency,
                "x1": fit.peak_concurrency,
                "yref": "paper",
                "y0": 0,
                "y1": 1,
                "line": {"dash": "dot"},
            }
        )
    return plot(
        data,
        "Throughput vs concurrency (Universal Scalability Law)",
        axis("concurrency (instances)"),
        axis("throughput, RPS", rangemode="tozero"),
        shapes=shapes,
    )


def trend_figure(trend: TrendAnalysis, title: str, unit: str) -> dict[str, Any]:
    xs = [p.label for p in trend.points]
    ys = [p.value for p in trend.points]
    broke = [p for p in trend.points if p.broke_trend]
    data: list[dict[str, Any]] = [
        {
            "type": "scatter",
            "mode": "lines+markers",
            "name": title,
            "x": xs,
            "y": ys,
            "customdata": [p.test_id for p in trend.points],
            "hovertemplate": "test %{customdata}<br>%{y}" + (f" {unit}" if unit else "") + "<extra></extra>",
        },
        {
            "type": "scatter",
            "mode": "markers",
            "name": "broke the trend",
            "x": [p.label for p in broke],
            "y": [p.value for p in broke],
            "marker": {"color": "#d62728", "size": 12, "symbol": "x"},
        },
    ]
    for name, key in (("upper threshold", "upper"), ("lower threshold", "lower")):
        values = [p.thresholds.get(key) for p in trend.points]
        if any(v is not None for v in values):
            data.append(
                {"type": "scatter", "mode": "lines", "name": name, "x": xs, "y": values, "line": {"dash": "dash"}}
            )
    shapes = [
        {
            "type": "line",
            "xref": "x",
            "x0": trend.points[i].label,
            "x1": trend.points[i].label,
            "yref": "paper",
            "y0": 0,
            "y1": 1,
            "line": {"dash": "dot", "color": "#ff7f0e"},
        }
        for i in trend.change_points
    ]
    return plot(data, title, axis("test", type="category"), axis(unit), shapes=shapes)
