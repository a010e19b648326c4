"""What a chat preview says about a test: a one-line summary such as "q99 1045.000 ms · 5 000 rps · 0.10 % errors".

The figures are the report's own (backend.reports.service.summary over the whole test, with its `outcomes` and
RPS), written by the formatters the pages follow (analytics.definitions), so a link's preview never disagrees
with the page it opens: q99 is exact when the test has raw samples and from merged histograms otherwise; rps is
the max RPS (the most held for 5 s); errors are the failed requests' share.
"""

from __future__ import annotations

from dataclasses import dataclass

from analytics.definitions import format_count, format_ms, format_percent
from backend.loadtests.models import Test
from backend.reports.whole import whole_summary

SUMMARY_LEVEL_PCT = 99.0


@dataclass(frozen=True)
class TestSummary:
    __test__ = False  # not a pytest test class

    responses: int
    q99_ms: float | None
    max_rps: float
    error_share: float  # 0..1 of requests


def summarize(test: Test) -> TestSummary | None:
    """The whole test's summary, or None while it has no responses."""
    answer = whole_summary(test)
    responses = int(answer["count"])
    if responses == 0:
        return None
    q99 = answer["quantiles_ms"].get(f"{SUMMARY_LEVEL_PCT:g}")
    return TestSummary(
        responses=responses,
        q99_ms=None if q99 is None else float(q99),
        max_rps=float(answer["rps"]["max"]),
        error_share=float(answer["outcomes"]["failed_share"] or 0.0),
    )


def summary_line(summary: TestSummary | None) -> str:
    if summary is None:
        return "no results yet"
    parts = []
    if summary.q99_ms is not None:
        parts.append(f"q99 {format_ms(summary.q99_ms)} ms")
    parts.append(f"{format_count(summary.max_rps)} rps")
    parts.append(f"{format_percent(summary.error_share)} errors")
    return " · ".join(parts)
