"""The one-line summary's wording (pure formatting)."""

from __future__ import annotations

from backend.sharing.summary import TestSummary, format_ms, format_share, summary_line


def test_the_line_of_the_issue() -> None:
    summary = TestSummary(responses=50_000, q99_ms=1045.2, max_rps=5000, error_share=0.001)
    assert summary_line(summary) == "q99 1045 ms · 5000 rps · 0.1% errors"


def test_formats() -> None:
    assert [format_ms(v) for v in (1045.4, 12.6, 3.456, 0.25)] == ["1045", "13", "3.5", "0.25"]
    assert [format_share(s) for s in (0, 0.00001, 0.0004, 0.001, 0.0123, 0.5, 1)] == [
        "0%",
        "0.001%",
        "0.04%",
        "0.1%",
        "1.2%",
        "50%",
        "100%",
    ]
    assert summary_line(None) == "no results yet"
    assert summary_line(TestSummary(responses=1, q99_ms=None, max_rps=1, error_share=1.0)) == "1 rps · 100% errors"
