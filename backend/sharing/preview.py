"""The chat-preview picture: the quantiles chart of a test (or the q99 of several, overlaid) as a PNG.

The figure is the report's own (analytics.figures), rendered on the server by kaleido, and cached in the shared
cache under a key made of what changes the picture (status, last second, active upload): a finished test is
rendered once, a streaming one at most once a minute. Rendering a figure takes tens of milliseconds once
kaleido's renderer is up (about 4 s for the first picture of a process).
"""

from __future__ import annotations

import threading
from typing import Any

import plotly.graph_objects as go
from django.core.cache import cache

from analytics import figures
from backend.clickhouse.queries import sharing as queries
from backend.loadtests.models import Test, TestStatus
from backend.sharing.summary import source_of

# The size chat clients show large (Slack, Telegram, Twitter's summary_large_image): 1.91:1.
WIDTH_PX = 1200
HEIGHT_PX = 630
MAX_POINTS = 600
FINISHED_TTL_S = 7 * 24 * 3600
ONLINE_TTL_S = 60
CACHE_VERSION = 1

# kaleido drives one renderer process per Python process; one picture at a time keeps it from being fed twice.
_render_lock = threading.Lock()


def _fingerprint(test: Test) -> str:
    return f"{test.pk}.{test.status}.{test.last_ts}.{test.active_upload_id}.{int(test.has_stream)}"


def _ttl(tests: list[Test]) -> int:
    return ONLINE_TTL_S if any(t.status == TestStatus.ONLINE for t in tests) else FINISHED_TTL_S


def _empty_figure(title: str) -> dict[str, Any]:
    return {
        "data": [],
        "layout": {
            "title": {"text": title},
            "annotations": [{"text": "no results yet", "showarrow": False, "font": {"size": 28}}],
            "xaxis": {"visible": False},
            "yaxis": {"visible": False},
        },
    }


def figure_for_test(test: Test) -> dict[str, Any]:
    title = f"#{test.pk} {test.name}".strip()
    source = source_of(test)
    series = queries.quantile_series(test.pk, source, MAX_POINTS) if source is not None else None
    if series is None or not series.ts:
        return _empty_figure(title)
    figure = figures.quantiles_figure(
        series.ts,
        queries.QUANTILE_LEVELS_PCT,
        series.quantiles_ms,
        series.rps,
        planned_rps=series.planned_rps,
        instances=series.instances,
    )
    figure["layout"]["title"] = {"text": title}
    return figure


def figure_for_compare(tests: list[Test]) -> dict[str, Any]:
    """q99 of each test against the seconds since its own start, as the compare page aligns them."""
    lines: dict[str, list[float]] = {}
    longest: list[int] = []
    for test in tests:
        source = source_of(test)
        if source is None:
            continue
        series = queries.quantile_series(test.pk, source, MAX_POINTS)
        if not series.ts:
            continue
        offsets = [t - series.ts[0] for t in series.ts]
        if len(offsets) > len(longest):
            longest = offsets
        q99 = queries.QUANTILE_LEVELS_PCT.index(99.0)
        lines[f"#{test.pk} q99"] = [row[q99] for row in series.quantiles_ms]
    title = "Compare " + " vs ".join(f"#{t.pk}" for t in tests)
    if not lines:
        return _empty_figure(title)
    # Pad the shorter tests with NaN (drawn as a gap) so every line shares the longest test's time axis.
    padded = {name: values + [float("nan")] * (len(longest) - len(values)) for name, values in lines.items()}
    figure = figures.lines_figure(title, longest, padded, "ms")
    # Offsets from the start on a date axis read as elapsed time once the date part is hidden.
    figure["layout"]["xaxis"] = {"type": "date", "tickformat": "%H:%M:%S", "title": {"text": "time from start"}}
    return figure


def render_png(figure: dict[str, Any]) -> bytes:
    layout = {**figure.get("layout", {}), "width": WIDTH_PX, "height": HEIGHT_PX, "paper_bgcolor": "white"}
    with _render_lock:
        png: bytes = go.Figure({"data": figure.get("data", []), "layout": layout}).to_image(
            format="png", width=WIDTH_PX, height=HEIGHT_PX
        )
    return png


def png_for_test(test: Test) -> bytes:
    key = f"sharing:png:v{CACHE_VERSION}:test:{_fingerprint(test)}"
    cached: bytes | None = cache.get(key)
    if cached is None:
        cached = render_png(figure_for_test(test))
        cache.set(key, cached, timeout=_ttl([test]))
    return cached


def png_for_compare(tests: list[Test]) -> bytes:
    key = f"sharing:png:v{CACHE_VERSION}:compare:" + ":".join(_fingerprint(t) for t in tests)
    cached: bytes | None = cache.get(key)
    if cached is None:
        cached = render_png(figure_for_compare(tests))
        cache.set(key, cached, timeout=_ttl(tests))
    return cached
