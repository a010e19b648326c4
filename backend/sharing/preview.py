"""The chat-preview picture: the quantiles chart of a test (or of several, overlaid) as a PNG.

The figure is the page's own (backend.reports.service.chart for a test, backend.compare.service.build for a
comparison; both built by analytics.figures*), rendered on the server by kaleido and cached in the shared cache
under a key made of what changes the picture (status, last second, active upload): a finished test is rendered
once, a streaming one at most once a minute. Rendering is quick once kaleido's renderer is up; the first picture
of a process waits for the renderer to start.
"""

from __future__ import annotations

import threading
from typing import Any

import plotly.graph_objects as go
from django.core.cache import cache

from analytics.quantiles import DEFAULT_LEVELS_PCT
from backend.compare import service as compare_service
from backend.compare.service import CompareParams
from backend.loadtests.models import Test, TestStatus
from backend.reports import service
from backend.reports.window import Window

# The size chat clients show large (Slack, Telegram, Twitter's summary_large_image): 1.91:1.
WIDTH_PX = 1200
HEIGHT_PX = 630
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


def _quantiles_chart(test: Test, levels_pct: tuple[float, ...]) -> dict[str, Any]:
    figure: dict[str, Any] = service.chart(test, "quantiles", Window(levels_pct=levels_pct))["figure"]
    return figure


def figure_for_test(test: Test) -> dict[str, Any]:
    """The report's quantiles chart of the whole test, titled with the test."""
    title = f"#{test.pk} {test.name}".strip()
    figure = _quantiles_chart(test, DEFAULT_LEVELS_PCT)
    if not figure.get("data"):
        return _empty_figure(title)
    figure["layout"]["title"] = {"text": title}
    return figure


def figure_for_compare(tests: list[Test]) -> dict[str, Any]:
    """The compare page's own quantiles figure: the tests overlaid, aligned at each test's start."""
    title = "Compare " + " vs ".join(f"#{t.pk}" for t in tests)
    unique = list({t.pk: t for t in tests}.values())
    if len(unique) < 2:
        return figure_for_test(unique[0])
    figure: dict[str, Any] = compare_service.build(CompareParams(test_ids=tuple(t.pk for t in unique)), unique)[
        "figures"
    ]["quantiles"]
    if not any(trace.get("x") for trace in figure.get("data", [])):
        return _empty_figure(title)
    figure["layout"]["title"] = {"text": title}
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
