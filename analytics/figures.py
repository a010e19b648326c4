"""Plotly figures of the report, as plain JSON dicts `{"data": [...], "layout": {...}}`.

The one place where charts are built: the frontend renders these generically (PlotlyFigure.tsx) and the chat
preview renders the same dicts with kaleido. Inputs are numpy arrays of already-computed series; x values of
time charts are unix milliseconds on a `date` axis (plotly shows them as UTC, the frontend may shift them).
NaN becomes null, which plotly draws as a gap.

Every chart has a legend (even with one series), a unit on each axis, and colours that mean the same thing on
every chart (`analytics.figures_colors`). Names that come from the data (cases, hosts, monitoring metrics) go
through `plain()`: plotly renders a subset of HTML in names and titles, and a metric called `<a href=...>` must
read as that text, not become a link.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from analytics.figures_colors import code_color
from analytics.quantiles import level_key

Figure = dict[str, Any]

# Quantile bands from light (median) to dark (max), in Overload's spirit: the tail is what people look at.
QUANTILE_COLORS: tuple[str, ...] = (
    "#b6e3a8",
    "#8fd37c",
    "#f3e07a",
    "#f5c464",
    "#f3a25a",
    "#ea7b4d",
    "#d9534f",
    "#b52b3a",
    "#7a1a2b",
)
PLANNED_RPS_COLOR = "#e00000"
# Tick labels of rate and count axes: plain decimals with thousands apart (d3-format), never SI's "500m".
RATE_TICKS = ",~r"
INSTANCES_COLOR = "#ff69b4"
RPS_COLOR = "#1f4e9c"


def _values(array: npt.ArrayLike, digits: int = 3) -> list[float | None]:
    out: list[float | None] = []
    for v in np.asarray(array, dtype=np.float64).tolist():
        out.append(None if not math.isfinite(v) else round(v, digits))
    return out


def plain(text: str) -> str:
    """Data text as plotly must show it: as text. Plotly turns entities back into characters when it draws."""
    return html.escape(str(text), quote=False)


def _time_x(ts: npt.ArrayLike) -> list[int]:
    return [int(t) * 1000 for t in np.asarray(ts, dtype=np.int64).tolist()]


# The time axis' title; the page rewrites it when it shows the browser's local time instead.
TIME_AXIS_TITLE = "time, UTC"


def axis(title: str, **extra: Any) -> dict[str, Any]:
    """A Plotly axis with its title (`extra`: its type, range, rangemode...)."""
    return {"title": {"text": title}, **extra}


def plot(data: list[dict[str, Any]], title: str, xaxis: dict[str, Any], yaxis: dict[str, Any], **layout: Any) -> Figure:
    """A figure in the shape the frontend's PlotlyFigure renders: traces, title, axes and more `layout`."""
    return {"data": data, "layout": {"title": {"text": title}, "xaxis": xaxis, "yaxis": yaxis, **layout}}


def _layout(title: str, y_title: str, **extra: Any) -> dict[str, Any]:
    layout: dict[str, Any] = {
        "title": {"text": title},
        "xaxis": {"type": "date", "title": {"text": TIME_AXIS_TITLE}},
        "yaxis": {"title": {"text": y_title}, "rangemode": "tozero"},
        # Plotly hides the legend of a one-series chart unless told: a reader must always see what a line is.
        "showlegend": True,
        "legend": {"orientation": "h"},
        "hovermode": "x unified",
        "margin": {"l": 60, "r": 60, "t": 40, "b": 40},
    }
    layout.update(extra)
    return layout


# When the top band (usually 100 %, the maximum) is typically more than this many times the band below it, it is
# drawn only on demand: one timeout per second would otherwise squash every other quantile into the bottom pixels.
# Typical = the median over the points, so that a few spikes of the lower band do not keep the maximum on screen.
DWARFING_RATIO = 3.0


def _dwarfing_top_level(q: npt.NDArray[np.float64], order: npt.NDArray[np.intp]) -> int | None:
    """The column of the top level if it dwarfs the level below it (see DWARFING_RATIO), else None."""
    if len(order) < 2 or q.size == 0:
        return None
    top, below = q[:, int(order[-1])], q[:, int(order[-2])]
    if np.all(np.isnan(top)) or np.all(np.isnan(below)):
        return None
    typical_top, typical_below = float(np.nanmedian(top)), float(np.nanmedian(below))
    return int(order[-1]) if typical_below > 0 and typical_top > DWARFING_RATIO * typical_below else None


def _second_axis_line(name: str, x: list[int], y: npt.ArrayLike, color: str) -> dict[str, Any]:
    """A rate line (responses/s, planned RPS, instances) on the quantiles chart's second axis."""
    return {
        "type": "scatter",
        "mode": "lines",
        "name": name,
        "x": x,
        "y": _values(y),
        "yaxis": "y2",
        "line": {"color": color, "width": 1.5},
    }


def quantiles_figure(
    ts: npt.ArrayLike,
    levels_pct: Sequence[float],
    quantiles_ms: npt.ArrayLike,
    rps: npt.ArrayLike,
    planned_rps: npt.ArrayLike | None = None,
    instances: npt.ArrayLike | None = None,
) -> Figure:
    """Quantile bands per point (ms, areas filled between consecutive levels), responses/s on a second axis,
    planned RPS (red) and instances (pink) when the generator reported them."""
    x = _time_x(ts)
    q = np.asarray(quantiles_ms, dtype=np.float64).reshape(len(x), len(levels_pct))
    order = np.argsort(np.asarray(levels_pct, dtype=np.float64), kind="stable")
    hidden_column = _dwarfing_top_level(q, order)
    data: list[dict[str, Any]] = []
    for position, column in enumerate(order):
        level = levels_pct[int(column)]
        data.append(
            {
                "type": "scatter",
                "mode": "lines",
                "name": f"{level_key(level)} %",
                "x": x,
                "y": _values(q[:, column]),
                "fill": "tozeroy" if position == 0 else "tonexty",
                "line": {"width": 0.5, "color": QUANTILE_COLORS[min(position, len(QUANTILE_COLORS) - 1)]},
                "hovertemplate": "%{y} ms",
                **({"visible": "legendonly"} if column == hidden_column else {}),
            }
        )
    data.append(_second_axis_line("responses/s", x, rps, RPS_COLOR))
    # The generator's own lines only when it reported them (pandora and uploads without a stream send zeros).
    right_axis = ["responses/s"]
    for name, series, color in (
        ("planned RPS", planned_rps, PLANNED_RPS_COLOR),
        ("instances", instances, INSTANCES_COLOR),
    ):
        if series is not None and np.nanmax(np.asarray(series, dtype=np.float64), initial=0) > 0:
            data.append(_second_axis_line(name, x, series, color))
            if name == "instances":
                right_axis.append("instances")
    layout = _layout(
        "Response time quantiles",
        "response time, ms",
        yaxis2={
            # Names only what is drawn on it: "instances" appears when the generator reported them.
            "title": {"text": ", ".join(right_axis)},
            # Own round ticks: plotly syncs an overlaying axis' ticks to the left one's grid by default, which
            # gives ticks like 61/123/184. Plain numbers (0.5, 12,000): SI prefixes read "500m" responses/s.
            "tickmode": "auto",
            "tickformat": RATE_TICKS,
            "overlaying": "y",
            "side": "right",
            "rangemode": "tozero",
            "showgrid": False,
        },
    )
    return {"data": data, "layout": layout}


def codes_figure(
    title: str, ts: npt.ArrayLike, per_code: Mapping[int, npt.ArrayLike], y_title: str = "per second"
) -> Figure:
    """Stacked areas, one per code (HTTP or net), in codes order, each code in its colour of meaning
    (`figures_colors.code_color`: the same code has the same colour on every test and every chart)."""
    x = _time_x(ts)
    kind = "net" if title.lower().startswith("net") else "http"
    data = [
        {
            "type": "scatter",
            "mode": "lines",
            # HTTP 0 is the generators' "no response": a net error, said so in the legend.
            "name": "0 (no response)" if kind == "http" and code == 0 else str(code),
            "x": x,
            "y": _values(values),
            "stackgroup": "codes",
            "line": {"width": 0.5, "color": code_color(kind, code)},
            "fillcolor": code_color(kind, code),
            "hovertemplate": "%{y} " + y_title,
        }
        for code, values in sorted(per_code.items())
    ]
    return {"data": data, "layout": _layout(title, y_title)}


def lines_figure(title: str, ts: npt.ArrayLike, series: Mapping[str, npt.ArrayLike], y_title: str) -> Figure:
    """One line per named series over time (phase times, sizes, monitoring metrics)."""
    x = _time_x(ts)
    data = [
        {"type": "scatter", "mode": "lines", "name": plain(name), "x": x, "y": _values(values)}
        for name, values in series.items()
    ]
    return {"data": data, "layout": _layout(plain(title), y_title)}


def quantiles_by_load_figure(rps: npt.ArrayLike, levels_pct: Sequence[float], quantiles_ms: npt.ArrayLike) -> Figure:
    """Quantiles (ms) as a function of responses per second: the degradation curve of a ramp test."""
    x = _values(rps)
    q = np.asarray(quantiles_ms, dtype=np.float64).reshape(len(x), len(levels_pct))
    data = [
        {
            "type": "scatter",
            "mode": "lines+markers",
            "name": f"{level_key(level)} %",
            "x": x,
            "y": _values(q[:, i]),
            "line": {"color": QUANTILE_COLORS[min(i, len(QUANTILE_COLORS) - 1)]},
        }
        for i, level in enumerate(levels_pct)
    ]
    layout = _layout(
        "Quantiles by load", "response time, ms", xaxis={"title": {"text": "responses/s"}, "rangemode": "tozero"}
    )
    layout["hovermode"] = "closest"
    return {"data": data, "layout": layout}


def instances_rps_figure(ts: npt.ArrayLike, instances: npt.ArrayLike, rps: npt.ArrayLike) -> Figure:
    """Responses per second against active instances, one marker per point, coloured by time."""
    data = [
        {
            "type": "scatter",
            "mode": "markers",
            "name": "responses/s",
            "x": _values(instances),
            "y": _values(rps),
            "text": [str(t) for t in np.asarray(ts, dtype=np.int64).tolist()],
            "marker": {"size": 5, "color": _time_x(ts), "colorscale": "Viridis", "showscale": False},
            "hovertemplate": "instances %{x}<br>%{y} responses/s",
        }
    ]
    layout = _layout(
        "Instances vs responses/s", "responses/s", xaxis={"title": {"text": "instances"}, "rangemode": "tozero"}
    )
    layout["hovermode"] = "closest"
    return {"data": data, "layout": layout}


def distribution_figure(
    per_series: Mapping[str, tuple[npt.ArrayLike, npt.ArrayLike, npt.ArrayLike]], log: bool
) -> Figure:
    """Response-time distribution as a density: for each named series, (bin lower edge ms, bin width ms, count),
    each bar as wide as its bin and as high as its responses per ms. The tank's bins widen with the time (10 µs,
    then 1 ms, then 10 ms...): raw counts over them draw a false peak wherever the bins get wider. Each bar's hover
    names its bin, its count and its share."""
    data: list[dict[str, Any]] = []
    for name, (lower_ms, width_ms, counts) in per_series.items():
        lows = np.asarray(lower_ms, dtype=np.float64)
        widths = np.asarray(width_ms, dtype=np.float64)
        n = np.asarray(counts, dtype=np.float64)
        total = float(n.sum()) or 1.0
        data.append(
            {
                "type": "bar",
                "name": plain(name),
                "x": _values(lows + widths / 2.0, 6),
                "width": _values(widths, 6),
                "y": _values(n / np.where(widths > 0, widths, 1.0), 6),
                "customdata": [
                    [_bin_label(low, low + width), int(count), 100.0 * count / total]
                    for low, width, count in zip(lows.tolist(), widths.tolist(), n.tolist(), strict=True)
                ],
                "hovertemplate": "%{customdata[0]} ms: %{customdata[1]} responses (%{customdata[2]:.2f} %)"
                + "<extra>%{fullData.name}</extra>",
            }
        )
    layout = _layout(
        "Response time distribution",
        "responses per ms",
        xaxis={"title": {"text": "response time, ms (bars as wide as the bins)"}},
        barmode="overlay",
    )
    layout["hovermode"] = "closest"
    if log:
        heights = [y for trace in data for y in trace["y"] if y]
        layout["yaxis"] = {
            "title": {"text": "responses per ms (log)"},
            **(log_axis(min(heights), max(heights)) if heights else {"type": "log"}),
        }
    return {"data": data, "layout": layout}


def _bin_label(low_ms: float, high_ms: float) -> str:
    return f"{low_ms:g}–{high_ms:g}"


def log_axis(low: float, high: float) -> dict[str, Any]:
    """A log axis with readable ticks: the 1-2-5 values of each decade in [low, high] written out in full (plotly's
    own labels the minor ticks by their first digit: "5 6 7 8 9 10 2 3 4 … 100 2 3")."""
    low, high = max(float(low), 1e-9), max(float(high), float(low), 1e-9)
    decades = range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1)
    for mantissas in ((1.0, 2.0, 5.0), (1.0, 2.0, 3.0, 5.0, 7.0), (1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0)):
        ticks = [m * 10.0**d for d in decades for m in mantissas if low <= m * 10.0**d <= high]
        if len(ticks) >= 3:
            break
    values = [float(f"{t:.6g}") for t in ticks]
    return {"type": "log", "tickmode": "array", "tickvals": values, "ticktext": [f"{v:,g}" for v in values]}


def has_values(series: Iterable[npt.ArrayLike]) -> bool:
    """Is any value of any series a number other than 0? (All zeros is what a generator writes for what it did not
    measure: a chart of it would draw a flat line that reads as a measurement.)"""
    for values in series:
        array = np.asarray(values, dtype=np.float64)
        if np.any(np.isfinite(array) & (array != 0)):
            return True
    return False


# Tick steps (s) of a short time axis: plotly's own go down to half seconds on a test of a few seconds.
TIME_TICK_STEPS_S = (1, 2, 5, 10, 15, 30, 60)
MAX_TIME_TICKS = 10


def time_axis_ticks(origin_s: int, end_s: int) -> dict[str, Any]:
    """Whole-second ticks for a short time axis (at most MAX_TIME_TICKS, on whole steps); {} for longer ones,
    where plotly's own are whole already."""
    span = end_s - origin_s
    for step in TIME_TICK_STEPS_S:
        if span / step <= MAX_TIME_TICKS:
            return {"tick0": origin_s * 1000, "dtick": step * 1000, "tickformat": "%H:%M:%S"}
    return {}


def empty_figure(title: str, reason: str) -> Figure:
    """A chart with nothing to draw: the page shows `reason` in its place instead of empty axes."""
    return {"data": [], "layout": {"title": {"text": plain(title)}, "meta": {"empty_reason": reason}}}
