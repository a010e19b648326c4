"""What a chat preview says about a test: a one-line summary such as "q99 1045 ms · 5000 rps · 0.1% errors".

q99 is exact (an order statistic of the raw samples) when the test has an active upload, otherwise it comes from
the merged per-second histograms of the tank's stream. rps is the busiest second. Errors are responses the client
would not accept: HTTP 4xx/5xx or no HTTP answer at all, which covers network errors (analytics.codes).
"""

from __future__ import annotations

from dataclasses import dataclass

from analytics.codes import is_http_error
from analytics.quantiles import sparse_histogram_quantiles_us
from backend.clickhouse.queries import sharing as queries
from backend.loadtests.models import Test

SUMMARY_LEVEL_PCT = 99.0


@dataclass(frozen=True)
class TestSummary:
    __test__ = False  # not a pytest test class

    responses: int
    q99_ms: float | None
    max_rps: int
    error_share: float  # 0..1 of responses


def source_of(test: Test) -> int | None:
    """The source_id whose rows describe the test (the active upload wins), or None if it has no data yet."""
    if test.active_upload_id is not None:
        return int(test.active_upload_id)
    return 0 if test.has_stream else None


def summarize(test: Test) -> TestSummary | None:
    source = source_of(test)
    if source is None:
        return None
    totals = queries.totals(test.pk, source)
    if totals.responses == 0:
        return None
    if test.active_upload_id is not None:
        q99 = queries.exact_quantile_ms(test.pk, int(test.active_upload_id), SUMMARY_LEVEL_PCT)
    else:
        q99_us = float(sparse_histogram_quantiles_us(totals.hist_bins, totals.hist_counts, [SUMMARY_LEVEL_PCT])[0])
        q99 = None if q99_us != q99_us else q99_us / 1000.0  # NaN: no response fell on the histogram grid
    answered = sum(totals.http_codes.values())
    errors = sum(count for code, count in totals.http_codes.items() if is_http_error(code))
    return TestSummary(
        responses=totals.responses,
        q99_ms=q99,
        max_rps=totals.max_rps,
        error_share=errors / answered if answered else 0.0,
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
