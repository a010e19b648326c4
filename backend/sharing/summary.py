"""What a chat preview says about a test: a one-line summary such as "q99 1045 ms · 5000 rps · 0.1% errors".

The figures are the report's own (backend.reports.service.summary over the whole test), so a link's preview
never disagrees with the page it opens: q99 is exact when the test has raw samples and from merged histograms
otherwise; rps is the busiest second; errors are responses the client would not accept (HTTP 4xx/5xx, or no
HTTP answer at all, which covers network errors; analytics.codes.is_http_error) as a share of all responses.
"""

from __future__ import annotations

from dataclasses import dataclass

from analytics.codes import is_http_error
from backend.loadtests.models import Test
from backend.reports import cache, service
from backend.reports.window import Window

SUMMARY_LEVEL_PCT = 99.0


@dataclass(frozen=True)
class TestSummary:
    __test__ = False  # not a pytest test class

    responses: int
    q99_ms: float | None
    max_rps: int
    error_share: float  # 0..1 of responses


def summarize(test: Test) -> TestSummary | None:
    """The whole test's summary, or None while it has no responses."""
    # The default view's summary (it has q99): the one post-processing keeps warm, so a page's card costs a cache read.
    window = Window()
    answer = cache.cached(test, "summary", window, lambda: service.summary(test, window))
    responses = int(answer["count"])
    if responses == 0:
        return None
    http = {int(code): int(n) for code, n in answer["http_codes"].items()}
    errors = sum(n for code, n in http.items() if is_http_error(code))
    q99 = answer["quantiles_ms"].get(f"{SUMMARY_LEVEL_PCT:g}")
    return TestSummary(
        responses=responses,
        q99_ms=None if q99 is None else float(q99),
        max_rps=int(answer["rps"]["max"]),
        error_share=min(1.0, errors / responses),
    )


def format_ms(value: float) -> str:
    # Whole milliseconds read best in a chat line; below 10 ms the decimals matter.
    return f"{value:.0f}" if value >= 10 else f"{value:.2g}"


def format_share(share: float) -> str:
    pct = share * 100.0
    if pct == 0:
        return "0%"
    if pct < 0.1:
        return f"{pct:.1g}%"
    text = f"{pct:.1f}"
    return (text[:-2] if text.endswith(".0") else text) + "%"


def summary_line(summary: TestSummary | None) -> str:
    if summary is None:
        return "no results yet"
    parts = []
    if summary.q99_ms is not None:
        parts.append(f"q99 {format_ms(summary.q99_ms)} ms")
    parts.append(f"{summary.max_rps} rps")
    parts.append(f"{format_share(summary.error_share)} errors")
    return " · ".join(parts)
